"""Each formula of the core's lenses, ranks and entropies against a value computed here by
hand (or from the documented formula), written to kill the mutants that survived the
property tests (scripts/mutation.sh): a wrong constant, sign, axis or comparison fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import info, lenses
from attn_tui.core.attention import (
    attention,
    float_info,
    numerical_rank,
    score_rank,
    score_tolerance,
)

EPS = float(np.finfo(np.float64).eps)


# -- ranks -------------------------------------------------------------------------------
def diag(shape, values, dtype=np.float64):
    a = np.zeros(shape, dtype=dtype)
    for i, v in enumerate(values):
        a[i, i] = v
    return a


def test_rank_tolerance_is_min_shape_times_eps_times_sigma_max():
    # 3 x 2: min(shape) = 2, so σ₂ = 1.5·eps·σ₁ is below the tolerance and 2.5·eps·σ₁ above it
    # (max(shape) = 3 would call 2.5·eps noise)
    assert numerical_rank(diag((3, 2), [1.0, 1.5 * EPS])) == 1
    assert numerical_rank(diag((3, 2), [1.0, 2.5 * EPS])) == 2
    assert numerical_rank(diag((2, 3), [1.0, 2.5 * EPS])) == 2  # wide as tall
    assert numerical_rank(diag((3, 2), [4.0, 2.5 * 4 * EPS])) == 2  # relative to σ₁, not absolute
    assert numerical_rank(diag((3, 2), [4.0, 1.5 * 4 * EPS])) == 1
    assert numerical_rank(diag((3, 3), [1.0, 1.5 * EPS]), size=1) == 2  # size given: 1·eps
    assert numerical_rank(diag((3, 3), [1.0, 2.5 * EPS]), size=3) == 1
    assert numerical_rank(diag((2, 2), [1.0, 0.0])) == 1 and numerical_rank(np.zeros((2, 3))) == 0
    assert numerical_rank(diag((2, 2), [1.0, 1e-3]), floor=2e-3) == 1  # the floor adds to the tolerance
    assert numerical_rank(diag((2, 2), [1.0, 1e-3]), floor=5e-4) == 2


def test_rank_uses_the_eps_of_the_matrix_dtype():
    e32 = float(np.finfo(np.float32).eps)
    assert numerical_rank(diag((2, 2), [1.0, 1.5 * e32], np.float32)) == 1  # 2·eps32 tolerance
    assert numerical_rank(diag((2, 2), [1.0, 2.5 * e32], np.float32)) == 2
    assert numerical_rank(diag((2, 2), [1.0, 1.5 * e32], np.float64)) == 2  # float64's eps: rank 2
    assert numerical_rank(np.array([[1, 0], [0, 1]])) == 2  # integers: float64's eps
    assert float_info(np.int64).eps == EPS and float_info(np.float16).eps == np.finfo(np.float16).eps
    assert float_info("float32").dtype == np.float32


def test_rank_of_nan_inf_or_empty_is_none():
    assert numerical_rank(np.array([[1.0, np.nan]])) is None and numerical_rank(np.array([[np.inf]])) is None
    assert numerical_rank(np.zeros((0, 3))) is None
    assert score_rank(np.array([[np.inf]]), [[1.0]], [[1.0]]) is None
    assert score_rank(np.zeros((0, 2)), np.zeros((0, 1)), np.zeros((2, 1))) is None


def documented_tolerance(S, Q, K, scale):
    """score_tolerance's docstring, computed here."""
    S, Q, K = np.asarray(S), np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    sub = float(np.finfo(S.dtype).smallest_subnormal)  # python floats: float16 arithmetic would round
    acc = float(np.finfo(np.float32).eps) if S.dtype == np.float16 else float(np.finfo(S.dtype).eps)
    T, d_k = Q.shape
    T_k = K.shape[0]
    B = abs(scale) * np.abs(Q) @ np.abs(K).T
    return (d_k + 2) * (acc * np.linalg.svd(B, compute_uv=False)[0] + math.sqrt(T * T_k) * sub)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (6, 2, 4), (3, 3, 1)])
def test_score_tolerance_is_its_documented_formula(dtype, shape):
    T, T_k, d_k = shape
    rng = np.random.default_rng(T * 100 + T_k * 10 + d_k)
    Q, K = rng.normal(size=(T, d_k)), rng.normal(size=(T_k, d_k))
    scale = -0.7  # only |scale| counts
    S = (scale * Q @ K.T).astype(dtype)
    want = documented_tolerance(S, Q, K, scale)
    assert score_tolerance(S, Q, K, scale) == pytest.approx(want, rel=1e-12, abs=0)
    # scale unknown: recovered as max|S| / max|Q Kᵀ| (S rounded in its dtype)
    rec = np.max(np.abs(S.astype(np.float64))) / np.max(np.abs(Q @ K.T))
    assert score_tolerance(S, Q, K) == pytest.approx(documented_tolerance(S, Q, K, rec), rel=1e-12, abs=0)


def test_score_tolerance_of_zero_factors_is_the_subnormal_floor():
    Q, K = np.zeros((4, 3)), np.zeros((9, 3))  # √(T T') = 6: a whole number of subnormals, exact
    S = np.zeros((4, 9))
    sub = float(np.finfo(np.float64).smallest_subnormal)
    assert score_tolerance(S, Q, K) == (3 + 2) * 6 * sub
    assert score_tolerance(S, Q, K, 2.0) == score_tolerance(S, Q, K)
    assert score_tolerance(np.ones((4, 9)), Q, K) == score_tolerance(S, Q, K)  # max|Q Kᵀ| = 0: no scale
    assert score_tolerance(S.astype(np.float32), Q, K) == (3 + 2) * 6 * float(np.finfo(np.float32).smallest_subnormal)
    assert score_rank(S, Q, K) == 0


def test_score_rank_is_bounded_by_the_factors_ranks():
    e = 3.1e-257
    Q, K = np.array([[1.0, e], [e, e]]), np.array([[e, 1.0], [e, e]])
    tr = attention(Q, K, np.zeros((2, 1)))
    assert np.linalg.matrix_rank(tr.S) == 2 and numerical_rank(tr.S, score_tolerance(tr.S, tr.Q, tr.K)) == 2
    assert (tr.rank_S, tr.rank_Q, tr.rank_K) == (1, 1, 1)  # e is below Q's and K's tolerance
    assert score_rank(tr.S, Q, np.array([[e, 1.0], [1.0, e]])) == 1  # the smaller factor bounds it
    # an honest rank 2 stays 2; rounding of cancelling scores is no rank
    Q, K = np.eye(2), np.array([[2.0, 1.0], [1.0, 3.0]])
    assert score_rank(Q @ K.T / math.sqrt(2), Q, K, 1 / math.sqrt(2)) == 2
    Q = np.array([[0.1, 0.2], [0.3, 0.6]])
    K = np.array([[0.2, -0.1], [0.6, -0.3]])  # every q·k cancels: S is rounding only
    S = Q @ K.T
    assert np.abs(S).max() < 1e-15 and score_rank(S, Q, K, 1.0) == 0


# -- entropies -----------------------------------------------------------------------------
def test_entropy_bits_by_hand():
    assert info.entropy_bits([0.25, 0.25, 0.5]) == 1.5
    assert info.entropy_bits([0.5, 0.5, 0.0]) == 1.0
    assert info.entropy_bits(np.array([1.0, 0.0])) == 0.0 and not math.copysign(1, info.entropy_bits([1.0])) < 0
    assert math.isnan(info.entropy_bits([0.5, np.nan]))
    assert info.entropy_bits([0.125] * 8) == 3.0


def test_row_entropies_are_float64_whatever_the_input():
    A = np.array([[0.25, 0.25, 0.5], [1.0, 0.0, 0.0]], dtype=np.float16)
    H = info.row_entropies_bits(A)
    assert H.dtype == np.float64 and H.tolist() == [1.5, 0.0]
    assert info.row_entropies_bits(np.array([[1, 0]])).tolist() == [0.0]  # integers too
    p = np.array([[0.1, 0.2, 0.7]], dtype=np.float32)
    assert info.row_entropies_bits(p)[0] == pytest.approx(info.entropy_bits(p[0].astype(np.float64)), rel=1e-15)
    with pytest.raises(ValueError, match="2-D"):
        info.row_entropies_bits(np.ones(3))


def test_effective_tokens_is_two_to_the_h():
    np.testing.assert_array_equal(info.effective_tokens([0.0, 1.0, 3.0, 1.5]), [1.0, 2.0, 8.0, 2**1.5])
    assert info.effective_tokens(np.float16(2.0)).dtype == np.float64


# -- lenses --------------------------------------------------------------------------------
def test_max_abs_diff_by_hand():
    assert lenses.max_abs_diff([1.0, -2.0, 3.0], [1.5, 2.0, 3.0]) == 4.0
    assert lenses.max_abs_diff([[1, 2]], [[1, 2]]) == 0.0
    assert lenses.max_abs_diff([], []) == 0.0
    assert math.isnan(lenses.max_abs_diff([np.nan, 1.0], [0.0, 1.0]))
    assert lenses.max_abs_diff(np.float16([1.0]), [1.25]) == 0.25


def test_prefix_average_and_box_kernel():
    W = lenses.prefix_average(3)
    np.testing.assert_array_equal(W, [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]])
    A, W4 = lenses.box_kernel(4)
    np.testing.assert_array_equal(W4, lenses.prefix_average(4))
    np.testing.assert_allclose(A, W4, rtol=0, atol=1e-15)
    A_inf, _ = lenses.box_kernel(3, fill=-np.inf)
    np.testing.assert_array_equal(A_inf, W)


def test_jacobian_diagonal_and_its_sum():
    np.testing.assert_array_equal(lenses.jacobian_diag([0.5, 0.25, 1.0, 0.0]), [0.25, 0.1875, 0.0, 0.0])
    assert lenses.jacobian_diag(np.float16([0.5])).dtype == np.float64


def test_score_cost_by_hand():
    assert lenses.score_cost(10, 4) == {"T": 10, "entries": 100, "flops_S": 800, "flops_O": 800}
    assert lenses.score_cost(3, 4, d_v=5, T_k=7) == {
        "T": 3,
        "entries": 21,
        "flops_S": 2 * 21 * 4,
        "flops_O": 2 * 21 * 5,
    }


def test_memory_lookup_ranks_by_weight_masked_last():
    row = np.array([0.1, 0.0, 0.6, 0.3])
    got = lenses.memory_lookup(row, ["a", "b", "c", "d"])
    assert got == [(2, "c", 0.6), (3, "d", 0.3), (0, "a", 0.1), (1, "b", 0.0)]
    assert lenses.memory_lookup(row, list("abcd"), top=2) == got[:2]
    nan = lenses.memory_lookup(np.array([np.nan, 0.0, 0.5]), ["x", "y", "z"])
    assert [i for i, _, _ in nan] == [2, 1, 0]  # NaN after every number, even 0
    tie = lenses.memory_lookup(np.array([0.5, 0.5, 0.0]), ["p", "q", "r"])
    assert [i for i, _, _ in tie] == [0, 1, 2]  # stable: ties keep key order


def test_nadaraya_watson_row_by_hand():
    Q = np.array([[1.0, 0.0], [0.0, 1.0]])
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    o, kappa = lenses.nadaraya_watson_row(Q, K, V, 0, 0.5)
    want_k = np.exp(0.5 * np.array([1.0, 0.0, 1.0]))
    np.testing.assert_allclose(kappa, want_k, rtol=1e-15)
    np.testing.assert_allclose(o, want_k @ V / want_k.sum(), rtol=1e-15)
    blocked = np.array([[False, True, True], [False, False, True]])
    o, kappa = lenses.nadaraya_watson_row(Q, K, V, 1, 2.0, blocked)
    want_k = np.array([np.exp(0.0), np.exp(2.0), 0.0])
    np.testing.assert_allclose(kappa, want_k, rtol=1e-15)
    np.testing.assert_allclose(o, want_k @ V / want_k.sum(), rtol=1e-15)
    o, _ = lenses.nadaraya_watson_row(Q * 1000, K, V, 0, 1.0)  # κ = e^1000 overflows: NaN, as documented
    assert np.isnan(o).all()


def test_rank_info_is_the_traces():
    rng = np.random.default_rng(5)
    Q, K = rng.normal(size=(5, 3)), rng.normal(size=(2, 3))
    tr = attention(Q, K, np.eye(2))
    got = lenses.rank_info(tr.S, tr.Q, tr.K)
    assert (got["S"], got["Q"], got["K"], got["d_k"]) == (2, 3, 2, 3) == (tr.rank_S, tr.rank_Q, tr.rank_K, 3)
    np.testing.assert_allclose(got["singular_values"], np.linalg.svd(tr.S, compute_uv=False), rtol=1e-12)
    bad = lenses.rank_info(np.array([[np.inf, 0.0]]), [[1.0]], [[1.0], [2.0]])
    assert bad["S"] is None and np.isnan(bad["singular_values"]).all() and len(bad["singular_values"]) == 1


def test_gradient_over_c_by_hand():
    s = np.array([1.0, 0.0, -1.0])
    rows = lenses.gradient_over_c(s, scales=(0.5, 2))
    assert [r["c"] for r in rows] == [0.5, 2.0]
    for r, c in zip(rows, (0.5, 2.0)):
        e = np.exp(c * s - c)
        p = e / e.sum()
        g = p * (1 - p)
        assert r["max_p"] == pytest.approx(p.max(), rel=1e-15)
        assert r["H"] == pytest.approx(-np.sum(p * np.log2(p)), rel=1e-14)
        assert r["max_grad"] == pytest.approx(g.max(), rel=1e-15)
        assert r["sum_grad"] == pytest.approx(g.sum(), rel=1e-14)
    vis = lenses.gradient_over_c(s, visible=[True, False, True], scales=(1,))[0]
    e = np.exp(np.array([1.0, -1.0]) - 1.0)
    p = e / e.sum()
    assert vis["max_p"] == pytest.approx(p.max()) and vis["H"] == pytest.approx(-np.sum(p * np.log2(p)))
    assert vis["sum_grad"] == pytest.approx(np.sum(p * (1 - p)))
    none = lenses.gradient_over_c(s, visible=[False] * 3, scales=(1,))[0]
    assert none == {"c": 1.0, "max_p": 0.0, "H": 0.0, "max_grad": 0.0, "sum_grad": 0.0}
    default = lenses.gradient_over_c(s)
    assert [r["c"] for r in default] == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]


def test_correlation_row_by_hand():
    Q = np.array([[1.0, 2.0], [0.0, 1.0]])
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    r = lenses.correlation_row(Q, K, 0, 0.5)
    np.testing.assert_array_equal(r["raw"], [1.0, 2.0, 3.0, -1.0])
    np.testing.assert_array_equal(r["scores"], [0.5, 1.0, 1.5, -0.5])
    assert r["visible"].tolist() == [True] * 4
    assert (r["peak"], r["runner_up"]) == (2, 1)
    assert r["margin"] == 0.5 and r["ratio"] == pytest.approx(math.exp(0.5), rel=1e-15)
    assert r["noise_sd"] == math.sqrt(2) and r["noise_sd_scores"] == 0.5 * math.sqrt(2)
    blocked = np.array([[False, True, True, False], [False, False, False, False]])
    r = lenses.correlation_row(Q, K, 0, -2.0, blocked)  # a negative scale flips the order
    assert r["visible"].tolist() == [True, False, False, True]
    assert (r["peak"], r["runner_up"]) == (3, 0) and r["margin"] == 4.0
    assert r["noise_sd_scores"] == 2.0 * math.sqrt(2)
    one = lenses.correlation_row(Q, K, 1, 1.0, np.array([[True] * 4, [True, True, False, True]]))
    assert one["peak"] == 2 and one["runner_up"] is None
    assert math.isnan(one["margin"]) and math.isnan(one["ratio"])
    none = lenses.correlation_row(Q, K, 1, 1.0, np.ones((2, 4), dtype=bool))
    assert none["peak"] is None and none["runner_up"] is None
    tie = lenses.correlation_row(np.array([[1.0, 1.0]]), K, 0, 1.0)  # keys 1, 2 tie at 1: the first wins
    assert (tie["peak"], tie["runner_up"]) == (2, 0)


def test_sharp_limit_bits_counts_ties_at_the_top():
    assert lenses.sharp_limit_bits([1.0, 3.0, 2.0]) == 0.0
    assert lenses.sharp_limit_bits([3.0, 3.0, 2.0]) == 1.0
    assert lenses.sharp_limit_bits([3.0, 3.0, 3.0, 3.0]) == 2.0
    assert lenses.sharp_limit_bits([3.0, 3.0 + 1e-12, 1.0]) == 1.0  # within rtol 1e-9: a tie
    assert lenses.sharp_limit_bits([3.0, 3.0 + 1e-6, 1.0]) == 0.0
    assert lenses.sharp_limit_bits([3.0, 3.0 + 1e-6], rtol=1e-3) == 1.0
    assert lenses.sharp_limit_bits([5.0, 3.0, 3.0], visible=[False, True, True]) == 1.0
    assert lenses.sharp_limit_bits([np.inf, 3.0, -np.inf]) == 0.0  # only finite scores count
    assert math.isnan(lenses.sharp_limit_bits([1.0, 2.0], visible=[False, False]))
    assert math.isnan(lenses.sharp_limit_bits([np.nan, -np.inf]))
    assert lenses.sharp_limit_bits([0.0, 0.0]) == 1.0  # atol 0 still ties exact zeros


def test_rounding_bound_is_factor_times_eps():
    assert lenses.rounding_bound("float64") == 4 * EPS == 2.0**-50
    assert lenses.rounding_bound("float32") == 4 * float(np.finfo(np.float32).eps)
    assert lenses.rounding_bound(np.float16, factor=2) == 2 * float(np.finfo(np.float16).eps)


# -- the second mutation run's survivors: inputs the lenses must cast, ties that must stay in order
def test_lenses_cast_integer_inputs_and_masks():
    g = lenses.gradient_over_c(np.array([1, 0, -1]), visible=np.array([1, 0, 1]), scales=(1,))[0]
    e = np.exp(np.array([1.0, -1.0]) - 1.0)
    p = e / e.sum()  # keys 1 and 3 visible (a 0/1 mask, not positions)
    assert g["max_p"] == pytest.approx(p.max(), rel=1e-15) and g["sum_grad"] == pytest.approx(np.sum(p * (1 - p)))
    r = lenses.correlation_row(
        np.array([[1, 2]]), np.array([[1, 0], [0, 1], [1, 1]]), 0, 0.5, blocked=np.array([[0, 1, 0]])
    )
    assert r["raw"].dtype == np.float64 and r["visible"].dtype == bool
    assert r["visible"].tolist() == [True, False, True] and (r["peak"], r["runner_up"]) == (2, 0)
    assert lenses.correlation_row(np.eye(2), np.eye(2), 0, 1.0)["visible"].dtype == bool
    assert lenses.sharp_limit_bits([1.0, 3.0, 3.0], visible=np.array([1, 0, 1])) == 0.0  # a mask, not indices


def test_sharp_limit_ties_are_relative_only():
    assert lenses.sharp_limit_bits([0.0, 1e-9]) == 0.0  # 1e-9 leads: no absolute tolerance near 0
    assert lenses.sharp_limit_bits([1e-300, 2e-300]) == 0.0


def test_memory_lookup_keeps_key_order_among_many_ties():
    row = np.r_[np.full(40, 0.01), 0.5, np.full(40, 0.01)]
    got = lenses.memory_lookup(row, [f"k{i}" for i in range(81)])
    assert [i for i, _, _ in got] == [40, *range(40), *range(41, 81)]


def test_correlation_row_overflowing_ratio_is_silent():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = lenses.correlation_row(np.array([[1000.0]]), np.array([[1.0], [0.0]]), 0, 1.0)
    assert r["margin"] == 1000.0 and r["ratio"] == math.inf


def test_nadaraya_watson_row_computes_in_float64_and_silently():
    import warnings

    Q16 = np.array([[4.0, 1.0]], dtype=np.float16)
    K16 = np.array([[5.0, 0.0], [0.0, 5.0]], dtype=np.float16)
    V16 = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float16)
    o, kappa = lenses.nadaraya_watson_row(Q16, K16, V16, 0, 1.0)  # κ = e^20: beyond float16, fine in float64
    want = np.exp([20.0, 5.0])
    assert kappa.dtype == np.float64 and np.allclose(kappa, want, rtol=1e-12)
    np.testing.assert_allclose(o, want / want.sum(), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o, _ = lenses.nadaraya_watson_row(np.array([[1000.0]]), np.array([[1.0]]), np.array([[1.0]]), 0, 1.0)
    assert np.isnan(o).all()  # inf / inf, documented, and no warning


def test_memory_lookup_top_zero_or_none_means_all():
    row = np.array([0.2, 0.8])
    full = [(1, "b", 0.8), (0, "a", 0.2)]
    assert lenses.memory_lookup(row, ["a", "b"], top=0) == full == lenses.memory_lookup(row, ["a", "b"], top=None)
    assert lenses.memory_lookup(row, ["a", "b"], top=1) == full[:1]


def test_entropy_bits_computes_in_float64():
    p16 = np.array([0.1, 0.2, 0.7], dtype=np.float16)
    p64 = p16.astype(np.float64)
    want = -math.fsum(x * math.log2(x) for x in p64)
    assert info.entropy_bits(p16) == pytest.approx(want, rel=1e-15)
    assert type(info.entropy_bits(p16)) is float


def test_correlation_row_ties_keep_key_order_among_many_keys():
    # 53 keys with scores 0, 1 or 2: the first two 2s (keys 9 and 11, 0-based 8 and 10) lead, in key order
    raw = [
        1,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        2,
        1,
        2,
        1,
        1,
        2,
        2,
        1,
        1,
        1,
        2,
        0,
        2,
        2,
        0,
        1,
        2,
        1,
        0,
        2,
        2,
        2,
        0,
        0,
        2,
        0,
        1,
        0,
        0,
        1,
        1,
        1,
        0,
        0,
        0,
        0,
        2,
        1,
        1,
        0,
        1,
        2,
        1,
        1,
        2,
    ]
    r = lenses.correlation_row(np.array([[1.0]]), np.array(raw, dtype=float)[:, None], 0, 1.0)
    assert (r["peak"], r["runner_up"]) == (8, 10) and r["margin"] == 0.0 and r["ratio"] == 1.0


def test_score_rank_uses_both_factors_and_the_given_scale():
    # (inputs that are not one product: the bound and the scale are each observable)
    assert score_rank(np.eye(2), np.eye(2), np.zeros((2, 2)), 1.0) == 0  # at most rank K = 0
    assert score_rank(np.eye(2), np.zeros((2, 2)), np.eye(2), 1.0) == 0  # at most rank Q = 0
    S = 1e-20 * np.eye(2)  # with scale 1 the rounding of Q Kᵀ (~1e-16) dwarfs S; recovered, it would not
    assert score_rank(S, np.eye(2), np.eye(2), 1.0) == 0 and score_rank(S, np.eye(2), np.eye(2)) == 2


def test_score_tolerance_recovers_small_scales_and_zero_products():
    rng = np.random.default_rng(3)
    Q, K = 0.01 * rng.normal(size=(3, 2)), 0.01 * rng.normal(size=(4, 2))  # max|Q Kᵀ| < 1
    S = 0.5 * Q @ K.T
    assert score_tolerance(S, Q, K) == pytest.approx(documented_tolerance(S, Q, K, 0.5), rel=1e-9, abs=0)
    sub = float(np.finfo(np.float64).smallest_subnormal)
    Q, K = np.array([[1.0, 1.0]]), np.array([[1.0, -1.0]])  # Q Kᵀ = 0 exactly, |Q| |K|ᵀ = 2
    assert score_tolerance(np.zeros((1, 1)), Q, K) == (2 + 2) * sub  # no scale to recover: 0

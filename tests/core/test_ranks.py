"""core.ranks' QR ranks at the edge of their tolerance: a singular value of S placed 2 % above and
below the tolerance score_rank_qr documents,

    min(T, T', d_k) · eps · σ_max(S) + (d_k + 2) · (eps_acc · σ_max(|scale| |Q| |K|ᵀ) + √(T T') · subnormal),

with every term computed here from the full S (np.linalg, not QR), is counted or not; each
factor's own rank bounds rank S; factor_rank's edge cases. Written to kill the mutants of
core/ranks.py (scripts/mutation.sh).

Ranks and singular values of S from QR factors of Q and K, checked against np.linalg on the full
S at small T, and against torch when it is importable.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.ranks import factor_rank, numerical_rank, score_rank, score_rank_qr, score_singular_values

RNG = np.random.default_rng(33)


def orthonormal(n, d):
    return np.linalg.qr(RNG.standard_normal((n, d)))[0]


def tolerance(Q, K, scale, dtype):
    fi = np.finfo(dtype)
    acc = np.finfo(np.promote_types(dtype, np.float32)).eps
    (T, d), T_k = Q.shape, K.shape[0]
    sigma = np.linalg.svd(scale * (Q @ K.T), compute_uv=False)
    big = np.linalg.norm(abs(scale) * (np.abs(Q) @ np.abs(K).T), 2)
    return sigma[0] * min(T, T_k, d) * fi.eps + (d + 2) * (acc * big + np.sqrt(T * T_k) * fi.smallest_subnormal)


def factors(bases, d, last, top=1.0):
    """Q (T x d), K (T' x d) on the given orthonormal bases with σ(Q Kᵀ) = (top, top/2, ..., last):
    σ(Q) = σ(K) = their square roots."""
    U1, U2, V = bases
    s = np.sqrt(np.r_[top / np.arange(1, d), last])
    return U1 * s @ V.T, U2 * s @ V.T


def at_the_edge(T, T_k, d, scale, dtype, f):
    """Q, K whose S = scale · Q Kᵀ has its smallest singular value f times the tolerance."""
    bases = orthonormal(T, d), orthonormal(T_k, d), orthonormal(d, d)
    last = 1e-3
    for _ in range(6):  # the tolerance moves a little with the last singular value: iterate
        Q, K = factors(bases, d, last)
        last = f * tolerance(Q, K, scale, dtype) / abs(scale)
    Q, K = factors(bases, d, last)
    sigma = np.linalg.svd(scale * (Q @ K.T), compute_uv=False)
    assert sigma[d - 1] == pytest.approx(f * tolerance(Q, K, scale, dtype), rel=1e-6)
    return Q, K


@pytest.mark.parametrize(
    "T, T_k, d, scale, dtype",
    [
        (4, 4, 4, 0.5, np.float32),  # the rounding floor (d_k + 2) eps_acc σ(|Q||K|ᵀ) weighs as much as the first term
        (5, 15, 2, -0.25, np.float32),  # T' = 3 T > d_k: min(T, T', d_k) = d_k, √(T T') is T''s; a negative scale
        (4, 8, 3, 2e-5, np.float16),  # tiny scores: the subnormal term √(T T') · 6e-8 dominates
        (6, 3, 3, 3.0, np.float16),  # float16's eps in the first term, float32's as eps_acc
        (3, 3, 3, 1.0, np.float64),
    ],
)
def test_a_singular_value_counts_only_above_the_documented_tolerance(T, T_k, d, scale, dtype):
    Q, K = at_the_edge(T, T_k, d, scale, dtype, 1.02)
    assert factor_rank(Q) == factor_rank(K) == d  # the factors themselves are of full rank
    assert score_rank_qr(Q, K, scale, dtype) == d
    Q, K = at_the_edge(T, T_k, d, scale, dtype, 0.98)
    assert factor_rank(Q) == factor_rank(K) == d
    assert score_rank_qr(Q, K, scale, dtype) == d - 1


def test_each_factor_s_rank_in_its_own_dtype_bounds_rank_s():
    # a float16 factor with singular values (1, 1e-3): 1e-3 is below 2 · eps16 = 2e-3, rank 1; the
    # other factor the identity (rank 2); S = the float16 factor, whose 1e-3 float64 counts
    low = np.array([[1.0, 0.0], [0.0, 1e-3]], dtype=np.float16)
    eye = np.eye(2)
    assert factor_rank(low) == 1 and factor_rank(eye) == 2
    assert score_rank_qr(low, eye, 1.0) == 1
    assert score_rank_qr(eye, low, 1.0) == 1
    assert score_rank_qr(eye, eye, 1.0) == 2


def test_default_scale_is_one():
    Q, K = RNG.standard_normal((5, 3)), RNG.standard_normal((4, 3))
    want = np.linalg.svd(Q @ K.T, compute_uv=False)[:3]
    np.testing.assert_allclose(score_singular_values(Q, K), want, rtol=1e-12)


def test_factor_rank_edges():
    assert factor_rank(np.ones((3, 1))) == 1  # one column, one singular value
    assert factor_rank(np.zeros((4, 2))) == 0  # all singular values 0: none above a 0 tolerance
    assert factor_rank(np.zeros((3, 0))) == 0  # no column: no singular value
    assert score_rank_qr(np.zeros((4, 2)), np.ones((3, 2)), 1.0) == 0


@pytest.mark.parametrize("T, T_k", [(2, 40), (40, 2)])
def test_fewer_queries_or_keys_than_d_k_bound_the_tolerance(T, T_k):
    # S (T x T') has at most min(T, T', d_k) = 2 singular values here, not d_k = 16: the tolerance's
    # first term counts 2 of them, so the last one at 1.02 x the tolerance counts and at 0.98 does not
    d, r = 16, min(T, T_k)
    bases = orthonormal(T, r), orthonormal(T_k, r), orthonormal(d, r)
    for f, rank in ((1.02, r), (0.98, r - 1)):
        last = 1e-3
        for _ in range(6):
            Q, K = factors(bases, r, last)
            last = f * tolerance(Q, K, 1.0, np.float64)
        Q, K = factors(bases, r, last)
        assert factor_rank(Q) == factor_rank(K) == r
        assert score_rank_qr(Q, K, 1.0) == rank, f


RNG_SMALL = np.random.default_rng(21)


def low_rank(T, d, r, dtype=np.float64):
    return (RNG_SMALL.standard_normal((T, r)) @ RNG_SMALL.standard_normal((r, d))).astype(dtype)


@pytest.mark.parametrize(
    "T, T_k, d, r", [(40, 40, 8, 8), (40, 30, 8, 3), (5, 9, 12, 12), (3, 3, 6, 1), (60, 60, 16, 5)]
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_qr_ranks_match_the_full_s(T, T_k, d, r, dtype):
    Q, K = low_rank(T, d, r, dtype), RNG_SMALL.standard_normal((T_k, d)).astype(dtype)
    scale = 0.7 / np.sqrt(d)
    with np.errstate(all="ignore"):
        S = (Q @ K.T) * dtype(scale)
    assert score_rank_qr(Q, K, scale, dtype) == score_rank(S, Q, K, scale)
    assert factor_rank(Q) == numerical_rank(Q) and factor_rank(K) == numerical_rank(K)
    if dtype == np.float64:
        sv = np.linalg.svd(S, compute_uv=False)[: min(T, T_k, d)]
        np.testing.assert_allclose(score_singular_values(Q, K, scale), sv, rtol=1e-9, atol=1e-12 * sv[0])


def test_no_t_by_t_matrix_is_needed():
    Q = low_rank(20000, 4, 2)  # S would be 20000 x 20000 (3 GiB); its rank is that of a 4 x 4 matrix
    assert score_rank_qr(Q, Q, 0.5) == 2
    assert score_singular_values(Q, Q, 0.5).shape == (4,)


def test_non_finite_factors_have_no_rank():
    Q = np.ones((3, 2))
    Q[1, 1] = np.nan
    assert score_rank_qr(Q, np.ones((3, 2)), 1.0) is None


def test_against_torch():
    torch = pytest.importorskip("torch")
    Q, K = low_rank(50, 10, 4), low_rank(70, 10, 6)
    S = torch.from_numpy(Q) @ torch.from_numpy(K).T * 0.3
    assert score_rank_qr(Q, K, 0.3) == int(torch.linalg.matrix_rank(S)) == 4
    want = torch.linalg.svdvals(S).numpy()[:10]
    np.testing.assert_allclose(score_singular_values(Q, K, 0.3), want, rtol=1e-9, atol=1e-12 * want[0])

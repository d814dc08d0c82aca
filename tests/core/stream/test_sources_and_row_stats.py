"""core.stream beyond the lesson's shapes, written to kill the mutants of core/stream.py
(scripts/mutation.sh): projected and cross sources, which arrays are shared and cached (and how
many), facts() of odd arrays, the dtype of every piece, the keys a rectangular window lets a row
see, the defaults of row_stats, its top keys for any k, a masked cell that keeps weight, no
NumPy warning from overflowing float16, and first_overflow's Q/K/V/S cells in scan order.
Expectations come from NumPy in float64 and tests/core/reference_attention.py, not from stream."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core import stream, stream_source
from attn_tui.core.scenario import Scenario
from tests.core.reference_attention import blocked as ref_blocked

RNG = np.random.default_rng(41)
F16_MAX = float(np.finfo(np.float16).max)


def cells(s_, name, r, c):
    """An ``inputs`` for first_overflow that says what it was given."""
    return (name, r, c)


def test_a_projected_source_is_x_through_the_weights_and_cross_takes_y():
    X, Y = RNG.standard_normal((5, 3)), RNG.standard_normal((7, 3))
    W_Q, W_K, W_V = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2)), RNG.standard_normal((3, 4))
    src = stream.Source.of(Scenario(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, mask="none"))
    for got, want in ((src.Q, X @ W_Q), (src.K, X @ W_K), (src.V, X @ W_V)):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    cross = stream.Source.of(Scenario(X=X, Y=Y, W_Q=W_Q, W_K=W_K, W_V=W_V, mask="none"))
    assert (cross.T, cross.T_k) == (5, 7)
    np.testing.assert_allclose(cross.K, Y @ W_K, rtol=1e-14)
    np.testing.assert_allclose(cross.V, Y @ W_V, rtol=1e-14)


def test_float64_inputs_are_shared_not_copied():
    s = Scenario(Q=RNG.standard_normal((6, 2)), K=RNG.standard_normal((6, 2)), V=RNG.standard_normal((6, 3)))
    src = stream.Source.of(s)
    assert all(np.shares_memory(a, b) for a, b in ((src.Q, s.Q), (src.K, s.K), (src.V, s.V)))


def test_the_cast_inputs_of_the_last_two_scenarios_are_kept():
    """Each cached entry holds T x d inputs and their casts (up to ~100 MiB at T = 16384): two."""
    stream_source._QKV.clear()
    a, b, c = (Scenario(Q=RNG.standard_normal((6, 2)), K=RNG.standard_normal((6, 2)), dtype="float32") for _ in "abc")
    qa, qb = stream.Source.of(a).Q, stream.Source.of(b).Q
    assert stream.Source.of(a).Q is qa and stream.Source.of(b).Q is qb  # both kept, no cast again
    qc = stream.Source.of(c).Q  # a was read least recently: it goes
    assert len(stream_source._QKV) == 2
    assert stream.Source.of(b).Q is qb and stream.Source.of(c).Q is qc
    assert stream.Source.of(a).Q is not qa
    np.testing.assert_array_equal(stream.Source.of(a).Q, qa)


def test_facts_of_odd_arrays():
    v = np.array([[3.0, 4.0], [6.0, -8.0], [1.0, 0.0]])
    assert stream.facts(v) == (-8.0, 6.0, 10.0)  # the largest row norm, not the norm of the whole array
    assert stream.facts(np.array([[np.inf, -np.inf], [np.nan, 1.0]]))[:2] == (1.0, 1.0)  # finite entries only
    lo, hi, norm = stream.facts(np.array([[np.inf, -np.inf]]))  # nothing finite
    assert np.isnan(lo) and np.isnan(hi) and norm == np.inf
    lo, hi, norm = stream.facts(np.zeros((0, 3)))
    assert np.isnan(lo) and np.isnan(hi) and norm == 0.0
    big = np.array([[60000.0, 60000.0], [1.0, 2.0]], dtype=np.float16)  # its row norm is beyond float16
    assert stream.facts(big) == (1.0, 60000.0, pytest.approx(60000.0 * np.sqrt(2.0), rel=1e-12))


def test_facts_are_computed_once_per_array_for_the_last_eight():
    stream_source._FACTS.clear()
    arrays = [np.full((2, 2), float(i + 1)) for i in range(9)]
    first = [stream.facts(a) for a in arrays[:8]]
    arrays[0][0, 0] = 100.0  # changed in place: a cached array is not scanned again
    assert stream.facts(arrays[0]) == first[0]
    ninth = stream.facts(arrays[8])  # a ninth array: one of the first ones goes, not the new one
    assert len(stream_source._FACTS) == 8
    arrays[8][0, 0] = 50.0
    assert stream.facts(arrays[8]) == ninth


def test_every_piece_is_in_the_dtype_and_min_fill_is_the_dtypes_own():
    T = 5
    s = Scenario(Q=RNG.standard_normal((T, 2)), K=RNG.standard_normal((T, 2)), dtype="float16", fill="min")
    src = stream.Source.of(s)
    assert src.fill == np.float16(-F16_MAX) and np.isfinite(src.fill)
    for piece in (src.scores(0, T), src.additive(0, T), src.masked(0, T), src.masked(1, 3, 2, 4)):
        assert piece.dtype == np.float16
    B = np.array(ref_blocked("causal", T, T))
    np.testing.assert_array_equal(src.additive(0, T), np.where(B, np.float16(-F16_MAX), np.float16(0)))
    assert src.masked(0, T).shape == (T, T)  # the default columns start at key 0
    np.testing.assert_array_equal(src.masked(0, T), src.scores(0, T) + src.additive(0, T))


@pytest.mark.parametrize(
    ("T", "T_k", "kw"),
    [
        (10, 4, dict(mask="window", window=2, padding=(2,))),  # rows 6.. see no key at all
        (10, 4, dict(mask="window", window=3)),
        (6, 9, dict(mask="none", padding=(1, 9))),
        (6, 9, dict(mask="none")),
        (8, 3, dict(mask="causal", padding=(3,))),
    ],
)
def test_visible_keys_of_rectangular_masks_are_whole_counts(T, T_k, kw):
    s = Scenario(Q=np.ones((T, 2)), K=np.ones((T_k, 2)), **kw)
    n = stream.Source.of(s).visible_keys()
    B = ref_blocked(kw["mask"], T, T_k, kw.get("padding", ()), kw.get("window"))
    assert n.tolist() == [sum(not b for b in row) for row in B]
    assert n.dtype.kind == "i"  # counts, printed as 3 and not 3.0


def test_row_stats_defaults_three_top_keys_and_no_row_sums():
    s = Scenario(Q=RNG.standard_normal((6, 2)), K=RNG.standard_normal((6, 2)), mask="none")
    st = stream.row_stats(stream.Source.of(s), 0, 6)
    assert st.top.shape == (6, 3) and st.top_w.shape == (6, 3) and st.row_sums is None


def test_a_row_with_fewer_finite_scores_than_k_lists_minus_one():
    # causal with a -inf fill: query t sees keys 0..t, the rest are -inf
    s = Scenario(Q=RNG.standard_normal((4, 2)), K=RNG.standard_normal((4, 2)), fill="-inf")
    st = stream.row_stats(stream.Source.of(s), 0, 4, top=3, tile=2)
    assert st.top[0].tolist() == [0, -1, -1] and st.top_w[0].tolist() == [1.0, 0.0, 0.0]
    assert sorted(st.top[1].tolist()) == [-1, 0, 1] and st.top[1][2] == -1


@pytest.mark.parametrize(("top", "tile", "T_k"), [(1, 3, 23), (2, 5, 23), (4, 64, 23), (7, 3, 23), (1, 2048, 1200)])
def test_top_keys_are_the_largest_weights_for_any_k(top, tile, T_k):
    T = 9
    Q, K = RNG.standard_normal((T, 4)) * 2, RNG.standard_normal((T_k, 4)) * 2
    st = stream.row_stats(stream.Source.of(Scenario(Q=Q, K=K, mask="none")), 0, T, top=top, tile=tile)
    S = Q @ K.T / 2.0
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    want = np.argsort(-A, axis=1, kind="stable")[:, :top]
    np.testing.assert_array_equal(st.top, want)
    np.testing.assert_allclose(st.top_w, np.take_along_axis(A, want, axis=1), rtol=1e-12)


def test_equal_weights_list_the_lower_key_first():
    st = stream.row_stats(stream.Source.of(Scenario(Q=np.zeros((3, 2)), K=np.ones((7, 2)), mask="none")), 0, 3, 4, 2)
    assert st.top.tolist() == [[0, 1, 2, 3]] * 3
    np.testing.assert_allclose(st.top_w, 1 / 7)


def test_a_masked_cell_can_keep_weight_when_scores_dwarf_the_fill():
    """A -1e9 fill is finite: a blocked score 1e9 + 1 keeps e¹ of weight against an open 0."""
    Q = np.array([[1e5], [1e5], [1.0]])
    K = np.array([[0.0], [1e4 + 1e-5], [2.0]])
    s = Scenario(Q=Q, K=K, mask="causal")
    X = Q @ K.T + np.where(np.array(ref_blocked("causal", 3, 3)), -1e9, 0.0)
    A = np.exp(X - X.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    want = np.where(np.array(ref_blocked("causal", 3, 3)), A, 0.0).max(axis=1)
    assert want[0] > 0.5  # the test's point: the mask did not win
    st = stream.row_stats(stream.Source.of(s), 0, 3, tile=1)
    np.testing.assert_allclose(st.max_blocked_w, want, rtol=1e-6)


def overflowing_f16():
    """float16 with a -inf fill: scores of 300·300 overflow, rows 1.. of a padded key 1 see nothing."""
    Q = np.zeros((6, 2))
    Q[2] = [300.0, 300.0]
    K = np.full((6, 2), 300.0)
    return Scenario(Q=Q, K=K, V=RNG.standard_normal((6, 3)), mask="none", padding=(1, 2, 3, 4, 5, 6),
                    fill="-inf", dtype="float16")  # fmt: skip


def test_overflow_and_empty_rows_raise_no_numpy_warning():
    """The overflow is reported by first_overflow, and a row that sees nothing is NaN by design:
    neither prints a RuntimeWarning (a line written over the explorer's screen)."""
    s = overflowing_f16()
    Q = np.array([[70000.0, 0.0], [1.0, 1.0]])  # beyond float16: cast to inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = stream.Source.of(Scenario(Q=Q, K=Q, mask="none", dtype="float16"))
        src = stream.Source.of(s)
        S, X = src.scores(0, 6), src.masked(0, 6)
        st = stream.row_stats(src, 0, 6, top=2, sums=True, tile=4)
        wide = stream.Source.of(Scenario(Q=np.full((2, 2), 150.0), K=np.full((3, 2), -150.0), mask="causal",
                                         fill="min", dtype="float16"))  # fmt: skip
        wide_X = wide.masked(0, 2)  # -31820 + (-65504) overflows to -inf in float16
        tiny = stream.Source.of(Scenario(Q=s.K, K=s.K, c=1e-9, dtype="float16"))  # the scale is 0 in float16
        tiny_S = tiny.scores(0, 6)  # inf · 0
        near = Scenario(Q=[[1e154, 0.0], [0.0, 1.0]], K=[[1e154, 0.0], [0.0, 1.0]], fill="min")
        near_st = stream.row_stats(stream.Source.of(near), 0, 2, sums=True)  # a "min" fill below S ≈ 7e307
        found = stream.first_overflow(s, cells)
    assert big.Q[0, 0] == np.inf and np.isinf(S[2]).all() and np.isnan(X[2]).all()
    assert np.isnan(st.H).all() and np.isnan(st.O).all() and np.isnan(st.row_sums).all()
    assert (
        wide_X[0, 1] == -np.inf
        and float(wide_X[0, 0]) == pytest.approx(-45000 / np.sqrt(2), rel=2e-3)
        and np.isnan(tiny_S).all()
    )
    p = np.exp([0.0, 0.5**0.5]) / np.exp([0.0, 0.5**0.5]).sum()  # row 1 sees S = 0 and 1/√2; row 0 one key
    np.testing.assert_allclose(near_st.H, [0.0, -(p * np.log2(p)).sum()], rtol=1e-12)
    assert near_st.row_sums.tolist() == [1.0, 1.0]
    assert found[:2] == ("S", ("S", 2, 0))


def test_first_overflow_names_q_k_or_v_and_its_first_cell():
    def scen(**big):
        m = {n: RNG.standard_normal((5, 3)) for n in "QKV"}
        for name, cells_ in big.items():
            for r, c in cells_:
                m[name][r, c] = 70000.0  # inf in float16
        return Scenario(**m, mask="none", dtype="float16")

    s = scen(Q=[(3, 0), (1, 2)])
    seen = []
    got = stream.first_overflow(s, lambda s_, n, r, c: seen.append(s_) or (n, r, c))
    assert got == ("Q", ("Q", 1, 2), "float16", F16_MAX) and seen == [s]
    assert stream.first_overflow(scen(K=[(4, 1), (2, 2)], V=[(0, 0)]), cells)[:2] == ("K", ("K", 2, 2))
    assert stream.first_overflow(scen(V=[(4, 2), (3, 1)]), cells)[:2] == ("V", ("V", 3, 1))


def first_in_scan_order(bad, block, tile):
    """The first True cell row block by row block, key tile by key tile, row-major inside."""
    for r0 in range(0, bad.shape[0], block):
        for c0 in range(0, bad.shape[1], tile):
            hits = np.argwhere(bad[r0 : r0 + block, c0 : c0 + tile])
            if len(hits):
                return r0 + int(hits[0][0]), c0 + int(hits[0][1])
    return None


@pytest.mark.parametrize("pairs", [[(50, 2060), (150, 10)], [(60, 5), (50, 2060)]])
def test_first_overflow_scans_s_block_by_block_and_tile_by_tile(pairs):
    """Q row r and K row c both 400 on their own axis: only S[r, c] = 400² / 2 overflows float16.
    The scan stops at the first block with an overflow, so it never holds more than a block's rows."""
    T, T_k, block = 300, stream.TILE + 52, 100
    Q, K = np.zeros((T, 4)), np.zeros((T_k, 4))
    for axis, (r, c) in enumerate(pairs):
        Q[r, axis], K[c, axis] = 400.0, 400.0
    s = Scenario(Q=Q, K=K, mask="none", dtype="float16")
    bad = np.abs(Q @ K.T / 2.0) > F16_MAX
    assert bad.sum() == len(pairs)
    assert stream.first_overflow(s, cells, block=block) == ("S", ("S", *first_in_scan_order(bad, block, stream.TILE)),
                                                            "float16", F16_MAX)  # fmt: skip


@pytest.mark.parametrize(("b", "scans"), [(200.0, False), (300.0, True)])
def test_the_scan_is_skipped_only_below_half_the_largest_finite(b, scans, monkeypatch):
    """|S| <= |scale| max‖q‖ max‖k‖ = 128 b: 25600 (0.39 of float16's largest finite) cannot
    overflow, so no score is computed; 38400 (0.59) might, so every block is scanned (and O), and
    nothing is found: S is 38400 at most."""
    Q = np.array([[128.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    K = np.array([[b, 0.0], [0.0, 2.0], [1.0, 0.0]])
    s = Scenario(Q=Q, K=K, V=RNG.standard_normal((3, 2)), scaled=False, dtype="float16")
    calls = []
    scores = stream.Source.scores
    monkeypatch.setattr(stream.Source, "scores", lambda self, *a: calls.append(a) or scores(self, *a))
    assert stream.first_overflow(s, cells, block=2) is None
    assert (len(calls) > 0) is scans

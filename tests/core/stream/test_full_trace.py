"""core.stream: the softmax over column tiles (two passes) gives the full trace's figures without
storing a T x T' matrix. Expectations come from Scenario.run() (the exact full path)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attn_tui.core import stream
from attn_tui.core.limits import _inputs, compute_problem
from attn_tui.core.scenario import Scenario

RNG = np.random.default_rng(7)
CASES = [
    dict(mask="causal"),
    dict(mask="none", padding=(2, 5)),
    dict(mask="window", window=3, fill="-inf"),
    dict(mask="none", padding=tuple(range(1, 31)), fill="-inf"),  # every key padded: NaN rows
    dict(mask="none", padding=tuple(range(1, 31))),  # every key padded with -1e9: uniform rows
    dict(mask="causal", padding=(1,), fill="-inf"),  # row 1 sees nothing
    dict(mask="causal", dtype="float32", c=3.0),
]


def scenario(T=40, T_k=30, **kw):
    if kw.get("mask") == "causal" or kw.get("mask") == "window":
        T_k = T
    Q, K, V = RNG.standard_normal((T, 6)) * 2, RNG.standard_normal((T_k, 6)) * 2, RNG.standard_normal((T_k, 4))
    return Scenario(Q=Q, K=K, V=V, **kw)


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("tile", [1, 7, 64])
def test_online_softmax_equals_the_full_trace(kw, tile):
    s = scenario(**kw)
    tr = s.run()
    st = stream.row_stats(stream.Source.of(s), 0, s.T, top=3, sums=True, tile=tile)
    tol = 1e-12 if s.dtype == "float64" else 1e-5
    nan = np.isnan(tr.A).any(axis=1)
    assert np.array_equal(np.isnan(st.H), nan) and np.array_equal(np.isnan(st.O).any(axis=1), nan)
    np.testing.assert_allclose(st.H[~nan], tr.H[~nan], atol=tol)
    np.testing.assert_allclose(st.O[~nan], tr.O[~nan], atol=tol)
    np.testing.assert_allclose(st.row_sums[~nan], tr.A[~nan].sum(axis=1), atol=tol)
    largest = np.where(tr.blocked, tr.A, 0).max(axis=1)
    np.testing.assert_allclose(st.max_blocked_w[~nan], largest[~nan], atol=tol)
    top_w = -np.sort(-tr.A[~nan], axis=1)[:, :3]  # the three largest weights of each row
    np.testing.assert_allclose(st.top_w[~nan], top_w, atol=tol)
    rows = np.arange(s.T)[~nan][:, None]
    held = np.where(st.top[~nan] >= 0, tr.A[rows, st.top[~nan]], 0.0)  # −1: a −inf key, weight 0
    np.testing.assert_allclose(held, top_w, atol=tol)  # the keys hold those weights


def test_blocks_of_rows_agree_with_one_block():
    s = scenario(T=50, mask="causal")
    src = stream.Source.of(s)
    whole = stream.row_stats(src, 0, 50)
    parts = [stream.row_stats(src, r0, r1) for r0, r1 in stream.blocks(50, 16)]
    assert [p.r0 for p in parts] == [0, 16, 32, 48]
    # a BLAS may take another kernel for a 2-row block than for 50 rows (another rounding): the dtype's
    # rounding, not the bits
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(np.concatenate([p.H for p in parts]), whole.H, rtol=64 * eps, atol=64 * eps)


def test_source_pieces_are_the_trace_pieces():
    s = scenario(mask="window", window=4, padding=(3,))
    tr, src = s.run(), stream.Source.of(s)
    np.testing.assert_array_equal(src.blocked(5, 12, 3, 20), tr.blocked[5:12, 3:20])
    np.testing.assert_array_equal(src.additive(0, s.T), tr.M)
    np.testing.assert_allclose(src.masked(2, 9, 1, 7), tr.S_masked[2:9, 1:7], rtol=1e-15)
    np.testing.assert_allclose(src.scores(0, s.T), tr.S, rtol=1e-15)


def test_identity_values_have_no_O():
    s = Scenario(Q=RNG.standard_normal((6, 2)), K=RNG.standard_normal((6, 2)))
    assert stream.row_stats(stream.Source.of(s), 0, 6).O is None


def test_first_overflow_agrees_with_the_full_check():
    ok = scenario(mask="causal", dtype="float16")
    assert stream.first_overflow(ok, _inputs) is None is compute_problem(ok)
    Q = np.ones((8, 4)) * 300.0  # 4 * 300 * 300 / 2 = 1.8e5 > float16's 65504
    bad = Scenario(Q=Q, K=np.ones((8, 4)) * 300.0, dtype="float16")
    assert stream.first_overflow(bad, _inputs) == compute_problem(bad)
    assert compute_problem(bad)[0] == "S"


def test_compute_problem_above_512_tokens_streams_and_agrees():
    T = 600  # above DENSE_MAX: limits.compute_problem takes the streamed path
    Q = np.zeros((T, 4))
    Q[450, 1] = 300.0
    K = np.full((T, 4), 300.0)
    bad = Scenario(Q=Q, K=K, mask="none", dtype="float16")  # S[450, :] = 9e4 / 2 overflows float16
    assert compute_problem(bad) == ("S", "Q row 451 and K row 1", "float16", 65504.0)
    assert compute_problem(Scenario(Q=Q / 100, K=K / 100, dtype="float16")) is None


@settings(max_examples=60, deadline=None)
@given(
    T=st.integers(1, 12),
    T_k=st.integers(1, 12),
    d=st.integers(1, 4),
    mask=st.sampled_from(["causal", "none", "window"]),
    window=st.integers(1, 4),
    fill=st.sampled_from(["-1e9", "-inf", "min"]),
    pad=st.sets(st.integers(1, 12), max_size=4),
    tile=st.integers(1, 13),
    seed=st.integers(0, 2**16),
)
@example(T=3, T_k=3, d=1, mask="window", window=1, fill="min", pad=set(), tile=1, seed=0)  # (m − m')·l was −inf
def test_online_softmax_matches_the_full_trace_on_random_shapes(T, T_k, d, mask, window, fill, pad, tile, seed):
    """Any shape, mask, fill, padding and tile width: H, O, row sums and the largest masked weight
    of the online softmax are the full trace's, and its NaN rows are the same rows."""
    if mask != "none":
        T_k = T
    rng = np.random.default_rng(seed)
    s = Scenario(
        Q=rng.standard_normal((T, d)) * 3,
        K=rng.standard_normal((T_k, d)) * 3,
        V=rng.standard_normal((T_k, 2)),
        mask=mask,
        window=window if mask == "window" else None,
        fill=fill,
        padding=tuple(sorted(p for p in pad if p <= T_k)),
    )
    tr = s.run()
    got = stream.row_stats(stream.Source.of(s), 0, T, top=2, sums=True, tile=tile)
    nan = np.isnan(tr.A).any(axis=1)
    assert np.array_equal(np.isnan(got.H), nan)
    np.testing.assert_allclose(got.H[~nan], tr.H[~nan], atol=1e-9)
    np.testing.assert_allclose(got.O[~nan], tr.O[~nan], atol=1e-12)
    np.testing.assert_allclose(got.row_sums[~nan], 1.0, atol=1e-12)
    np.testing.assert_allclose(got.max_blocked_w[~nan], np.where(tr.blocked, tr.A, 0).max(axis=1)[~nan], atol=1e-15)

"""core.lazy: LazyMatrix indexing and LazyTrace's matrices against the full trace (Scenario.run())."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core.lazy import LazyMatrix, LazyTrace
from attn_tui.core.scenario import Scenario

RNG = np.random.default_rng(3)
FULL = RNG.standard_normal((70, 45))


def lazy(rows=8, cols=16, cache=4):
    """``cache``: whole tiles' bytes the matrix keeps (the edge tiles are smaller: more of them fit)."""
    fn = lambda r0, r1, c0, c1: FULL[r0:r1, c0:c1]  # noqa: E731
    return LazyMatrix(FULL.shape, FULL.dtype, fn, rows, cols, cache * rows * cols * FULL.itemsize)


@pytest.mark.parametrize(
    "key",
    [
        (3, slice(0, 45)),
        (slice(5, 30), slice(10, 40)),
        69,
        -1,
        (2, 7),
        (slice(None), 44),
        (slice(60, 200), slice(40, 99)),
    ],
)
def test_indexing_is_numpys(key):
    got, want = lazy()[key], FULL[key]
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_tiles_are_computed_once_and_the_cache_is_bounded(tiles_computed):
    m = lazy(cache=4)
    m[0:8, 0:16]
    m[0:8, 0:16]
    assert tiles_computed(m) == 1
    m[0:70, 0:45]  # 9 x 3 tiles, one of them cached
    assert tiles_computed(m) == 27 and m._held == sum(t.nbytes for t in m._tiles.values()) <= 4 * 8 * 16 * 8
    with pytest.raises(IndexError):
        m[70, 0]
    with pytest.raises(IndexError):
        m[0:10:2, 0]


CASES = [
    dict(mask="causal"),
    dict(mask="window", window=5, padding=(2,), fill="-inf"),
    dict(mask="none", padding=tuple(range(1, 41)), fill="-inf"),  # every key padded: NaN rows
    dict(mask="causal", dtype="float32", c=2.0),
    dict(mask="causal", dtype="float16"),
]


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("with_v", [True, False])
def test_lazy_trace_equals_the_full_trace(kw, with_v):
    T = 40
    Q, K, V = RNG.standard_normal((T, 6)), RNG.standard_normal((T, 6)), RNG.standard_normal((T, 3))
    s = Scenario(Q=Q, K=K, V=V if with_v else None, **kw)
    tr, lz = s.run(), LazyTrace(s)
    tol = {"float64": 1e-12, "float32": 1e-6, "float16": 2e-3}[s.dtype]
    for name in ("S", "M", "S_masked", "blocked"):
        np.testing.assert_array_equal(getattr(lz, name)[0:T, 0:T], getattr(tr, name))
    for name in ("A", "O"):
        got = getattr(lz, name)
        assert got.shape == getattr(tr, name).shape and got.dtype == tr.A.dtype
        np.testing.assert_allclose(got[0:T, 0 : got.shape[1]], getattr(tr, name), atol=tol, equal_nan=True)
        np.testing.assert_allclose(got[7], getattr(tr, name)[7], atol=tol, equal_nan=True)
    np.testing.assert_allclose(lz.H_rows(0, T), tr.H, atol=50 * tol, equal_nan=True)
    ulp = 4 * float(np.finfo(tr.S.dtype).eps)  # S's range is taken in float64: the dtype's rounding apart
    for name in ("S", "S_masked", "A", "O", "M"):
        lo, hi = lz.bounds(name)
        v = getattr(tr, name).astype(np.float64)
        v = v[np.isfinite(v)]
        tol_lo, tol_hi = (1e-9 + ulp * max(1, abs(b)) for b in (lo, hi))
        assert v.size == 0 or lo <= v.min() + tol_lo and v.max() <= hi + tol_hi
        if name == "S":  # T = 40 <= SAMPLE_ROWS: every row is in the sample, the range is S's own
            assert (lo, hi) == pytest.approx((v.min(), v.max()), rel=ulp, abs=1e-9)


def test_a_large_trace_reads_only_what_is_asked(tiles_computed):
    T = 16384
    s = Scenario(Q=RNG.standard_normal((T, 8)), K=RNG.standard_normal((T, 8)), V=RNG.standard_normal((T, 4)))
    lz = LazyTrace(s)
    row = lz.A[T - 1]  # one row: one row block of statistics, and that row alone (not 32-row tiles)
    assert row.shape == (T,) and abs(float(row.astype(np.float64).sum()) - 1) < 1e-12
    assert tiles_computed(lz.A) == 1 and len(lz._stats) == 1
    np.testing.assert_array_equal(lz.A[T - 1], row)  # from the cache
    assert tiles_computed(lz.A) == 1
    assert tiles_computed(lz.S) == 1  # row T - 1 of S, which A's row was computed from (S + M, then the softmax)
    lz.S[100:110, 2100:2200]  # inside one ROWS x COLS tile
    assert tiles_computed(lz.S) == 2
    lz.S_masked[100:110, 2100:2200]
    assert tiles_computed(lz.S) == 2 and tiles_computed(lz.S_masked) == 2  # A row, this tile from S: no new product


@pytest.mark.parametrize(
    "kw", [*CASES, dict(mask="causal", padding=(1, 3), fill="-inf"), dict(mask="window", window=1)]
)
def test_visible_keys_nan_rows_entropies_and_ranks(kw):
    T = 40
    s = Scenario(Q=RNG.standard_normal((T, 6)), K=RNG.standard_normal((T, 6)), **kw)
    tr, lz = s.run(), LazyTrace(s)
    np.testing.assert_array_equal(lz.visible, (~tr.blocked).sum(axis=1))
    assert lz.nan_rows == tr.nan_rows
    tol = {"float64": 1e-12, "float32": 1e-5, "float16": 0.1}[s.dtype]
    np.testing.assert_allclose(lz.H[0:T], tr.H, atol=tol, equal_nan=True)
    np.testing.assert_allclose(np.asarray(lz.eff), tr.eff, atol=tol * 40, equal_nan=True)
    assert lz.H[5] == pytest.approx(float(tr.H[5]), abs=tol, nan_ok=True) and len(lz.H) == T
    info = lz.rank_info()
    assert (info["S"], info["Q"], info["K"], info["d_k"]) == (tr.rank_S, tr.rank_Q, tr.rank_K, 6)


def test_visible_keys_of_a_rectangular_causal_scenario():
    s = Scenario(Q=np.ones((7, 2)), K=np.ones((4, 2)), mask="causal", padding=(2,))
    np.testing.assert_array_equal(LazyTrace(s).visible, (~s.run().blocked).sum(axis=1))


def test_the_lenses_read_one_row_of_a_lazy_mask(tiles_computed):
    from attn_tui.core import lenses

    T = 4096
    s = Scenario(Q=RNG.standard_normal((T, 4)), K=RNG.standard_normal((T, 4)))
    lz = LazyTrace(s)
    r = lenses.correlation_row(lz.Q, lz.K, 7, lz.scale, lz.blocked)
    np.testing.assert_array_equal(r["visible"], np.arange(T) <= 7)
    assert tiles_computed(lz.blocked) == 1  # row t alone, not T x T


def test_a_single_wide_row_equals_its_tiles():
    m, tiled = lazy(rows=8, cols=4), lazy(rows=8, cols=64)
    np.testing.assert_array_equal(m[5], FULL[5])  # 45 columns > 4 tiles of 4: the direct path
    np.testing.assert_array_equal(m[5:7, 0:45], tiled[5:7, 0:45])
    got = m[5]
    got[:] = 0  # a caller's copy: the cache is not written through
    np.testing.assert_array_equal(m[5], FULL[5])


@settings(max_examples=40, deadline=None)
@given(
    T=st.integers(1, 40),
    mask=st.sampled_from(["causal", "none", "window"]),
    window=st.integers(1, 5),
    fill=st.sampled_from(["-1e9", "-inf", "min"]),
    pad=st.sets(st.integers(1, 40), max_size=5),
    seed=st.integers(0, 2**16),
)
def test_lazy_a_and_o_match_the_full_trace_on_random_scenarios(T, mask, window, fill, pad, seed):
    rng = np.random.default_rng(seed)
    s = Scenario(
        Q=rng.standard_normal((T, 3)) * 3,
        K=rng.standard_normal((T, 3)) * 3,
        V=rng.standard_normal((T, 2)),
        mask=mask,
        window=window if mask == "window" else None,
        fill=fill,
        padding=tuple(sorted(p for p in pad if p <= T)),
    )
    tr, lz = s.run(), LazyTrace(s)
    np.testing.assert_allclose(lz.A[0:T, 0:T], tr.A, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(lz.O[0:T, 0:2], tr.O, atol=1e-12, equal_nan=True)
    assert lz.nan_rows == tr.nan_rows


def test_identity_values_are_lazy_and_bounded():
    s = Scenario(Q=RNG.standard_normal((30, 2)), K=RNG.standard_normal((30, 2)))
    lz = LazyTrace(s)
    np.testing.assert_array_equal(lz.V[0:30, 0:30], np.eye(30))
    assert lz.bounds("V") == lz.bounds("O") == (0.0, 1.0)
    np.testing.assert_allclose(lz.O[0:30, 0:30], s.run().A, atol=1e-15)


def test_warm_computes_what_the_last_trace_gave_so_reading_it_again_computes_nothing(monkeypatch, tiles_computed):
    from attn_tui.core import lazy as lazy_mod
    from attn_tui.core import stream

    T = 2000
    s = Scenario(Q=RNG.standard_normal((T, 8)), K=RNG.standard_normal((T, 8)), V=RNG.standard_normal((T, 3)))
    old = LazyTrace(s)
    shown = [old.A[100:110, 0:12], old.S[1500:1508, 600:640], old.H_rows(100, 110), old.O[1990]]
    new = LazyTrace(s.with_(c=1.7))
    per_block = lazy_mod.ROWS * T * (8 + 3)
    blocks = sorted(old.recent_blocks())
    assert blocks == [96, 1984]  # rows 100-109 lie in the block from 96; row 1990 in the one from 1984
    assert lazy_mod.warm_cost(old) == lazy_mod.warm_cost(old, new) == 2 * per_block
    new.warm(old)
    assert lazy_mod.warm_cost(old, new) == 0
    counts = {n: tiles_computed(getattr(new, n)) for n in lazy_mod.NAMES}
    calls = []
    monkeypatch.setattr(stream, "row_stats", lambda *a, **k: calls.append(a))
    again = [new.A[100:110, 0:12], new.S[1500:1508, 600:640], new.H_rows(100, 110), new.O[1990]]
    assert calls == [] and {n: tiles_computed(getattr(new, n)) for n in lazy_mod.NAMES} == counts  # all from the caches
    monkeypatch.undo()
    want = LazyTrace(s.with_(c=1.7))  # a cold trace of the same scenario: the warmed one reads the same numbers
    cold = [want.A[100:110, 0:12], want.S[1500:1508, 600:640], want.H_rows(100, 110), want.O[1990]]
    for got, ref in zip(again, cold):
        np.testing.assert_array_equal(got, ref)
    assert not np.allclose(again[0], shown[0])  # c changed A: the test would see a stale copy


def test_warm_stops_when_cancelled_and_remembers_only_the_last_blocks(tiles_computed):
    from attn_tui.core import lazy as lazy_mod

    T = 2000
    s = Scenario(Q=RNG.standard_normal((T, 4)), K=RNG.standard_normal((T, 4)))
    old = LazyTrace(s)
    for t in range(0, 16 * (lazy_mod.RECENT_BLOCKS + 3), 16):
        old.H_rows(t, t + 1)
    assert len(old.recent_blocks()) == lazy_mod.RECENT_BLOCKS  # what was on screen last, not the whole walk
    new = LazyTrace(s.with_(c=2.0))
    new.warm(old, cancelled=lambda: True)
    assert len(new._stats) == 0 and all(tiles_computed(getattr(new, n)) == 0 for n in lazy_mod.NAMES)


def test_a_large_s_gets_its_colour_range_from_a_sample_of_rows_not_the_loose_bound():
    from attn_tui.core import stream

    T, d = 3000, 64
    Q, K = RNG.standard_normal((T, d)), RNG.standard_normal((T, d))
    lz = LazyTrace(Scenario(Q=Q, K=K, c=2.0))
    lo, hi = lz.bounds("S")
    S = lz.scale * (Q @ K.T)  # the whole matrix, for the comparison only
    rows = np.unique(np.linspace(0, T - 1, stream.SAMPLE_ROWS).round().astype(int))
    assert (lo, hi) == pytest.approx((S[rows].min(), S[rows].max()), rel=1e-12)
    assert S.min() <= lo < 0.7 * S.min() and 0.7 * S.max() < hi <= S.max()  # within 30 % of the true range
    q, k = (np.linalg.norm(a, axis=1).max() for a in (Q, K))
    assert hi < 0.5 * lz.scale * q * k  # the Cauchy-Schwarz bound it replaced was over twice as wide

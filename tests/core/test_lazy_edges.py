"""core.lazy beyond the shapes of test_lazy.py, written to kill the mutants of core/lazy.py
(scripts/mutation.sh): index 0 and the errors' words, which reads take the direct few-rows path
and how many tiles each computes, empty reads, np.asarray, the dtype of every matrix, key tiles
past the first COLS columns, the caches' bounds, warm's cancellation, H over part of a block,
bounds of M, warm_cost without V, and the ranks in float16. Expectations come from NumPy in
float64 over the full matrices, never from core.lazy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core import lazy
from attn_tui.core.lazy import LazyMatrix, LazyRows, LazyTrace
from attn_tui.core.scenario import Scenario

RNG = np.random.default_rng(29)
FULL = RNG.standard_normal((70, 45))


def recorded(rows=8, cols=4, cache_bytes=64 * 8 * 4 * 8, full=FULL):
    calls = []

    def fn(r0, r1, c0, c1):
        calls.append((r0, r1, c0, c1))
        return full[r0:r1, c0:c1]

    return LazyMatrix(full.shape, full.dtype, fn, rows, cols, cache_bytes), calls


def softmax_rows(X):
    A = np.exp(X - X.max(axis=1, keepdims=True))
    return A / A.sum(axis=1, keepdims=True)


def test_index_zero_len_and_the_errors_words():
    m, _ = recorded()
    np.testing.assert_array_equal(m[0], FULL[0])
    assert m[0, 0] == FULL[0, 0] and np.ndim(m[0, 0]) == 0 and m[-70, 1] == FULL[0, 1]
    assert len(m) == 70 and len(recorded(full=FULL[:, :9])[0]) == 70
    with pytest.raises(IndexError, match=r"^index 70 is out of bounds for size 70$"):
        m[70]
    with pytest.raises(IndexError, match=r"^index -71 is out of bounds for size 70$"):
        m[-71, 0]
    with pytest.raises(IndexError, match=r"^LazyMatrix: slices with a step are not supported$"):
        m[0:4:2]
    with pytest.raises(IndexError, match=r"^LazyMatrix: index with \[rows, cols\]$"):
        m[0, 1, 2]


@pytest.mark.parametrize(
    ("key", "direct"),
    [
        ((5, slice(0, 17)), True),  # 1 row, 17 columns > 4 tiles of 4: computed as asked
        ((slice(5, 7), slice(0, 45)), True),
        ((slice(5, 8), slice(0, 45)), False),  # 3 rows: tiles
        ((5, slice(0, 16)), False),  # 16 columns = 4 tiles: tiles
        ((5, slice(20, 30)), False),
        ((5, slice(0, 3)), False),
        ((5, slice(28, 45)), True),
    ],
)
def test_a_few_rows_across_many_tiles_are_computed_as_asked(key, direct):
    m, calls = recorded()
    np.testing.assert_array_equal(m[key], FULL[key])
    r, c = key
    r0, r1 = (r, r + 1) if isinstance(r, int) else (r.start, r.stop)
    if direct:
        assert calls == [(r0, r1, c.start, c.stop)]
    else:
        assert all(c1 - c0 <= 4 and r1_ - r0_ <= 8 for r0_, r1_, c0, c1 in calls)


def test_empty_reads_compute_nothing(tiles_computed):
    m, calls = recorded()
    assert m[5:5, 0:10].shape == (0, 10) and m[0:3, 7:7].shape == (3, 0) and m[5:5, 0:45].shape == (0, 45)
    assert calls == [] and tiles_computed(m) == 0


def test_direct_reads_are_counted_and_kept_in_a_bounded_cache(tiles_computed):
    m, calls = recorded(cache_bytes=2 * FULL[0].nbytes)  # two rows' bytes
    for t in (1, 2, 1, 2):
        np.testing.assert_array_equal(m[t], FULL[t])
    assert tiles_computed(m) == 2 and len(calls) == 2  # both kept
    m[3]
    assert tiles_computed(m) == 3 and len(m._tiles) == 2
    m[3]
    assert tiles_computed(m) == 3  # the newest stays


def test_tiles_keep_the_newest_when_the_cache_is_full(tiles_computed):
    m, calls = recorded(rows=8, cols=16, cache_bytes=2 * 8 * 16 * 8)  # two tiles
    m[0, 0:16], m[8, 0:16], m[16, 0:16]
    m[16, 0:16]
    assert tiles_computed(m) == 3


def test_np_asarray_is_the_whole_matrix_in_its_dtype_or_the_one_asked():
    m, _ = recorded()
    np.testing.assert_array_equal(np.asarray(m), FULL)
    assert np.asarray(m, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(m, dtype=np.float32), FULL.astype(np.float32))
    s = Scenario(Q=RNG.standard_normal((5, 2)), K=RNG.standard_normal((5, 2)))
    lz = LazyTrace(s)
    b = np.asarray(lz.blocked)
    assert b.dtype == bool and b.tolist() == np.triu(np.ones((5, 5), bool), 1).tolist()
    H = np.asarray(lz.H, dtype=np.float32)
    assert H.dtype == np.float32 and H.shape == (5,) and np.asarray(lz.H).dtype == np.float64


def test_every_matrix_keeps_the_scenarios_dtype():
    s = Scenario(Q=RNG.standard_normal((4, 2)), K=RNG.standard_normal((4, 2)), dtype="float16")
    lz = LazyTrace(s)
    for name in ("S", "M", "S_masked", "A", "O", "V"):
        assert getattr(lz, name).dtype == np.float16 and getattr(lz, name)[0:2, 0:3].dtype == np.float16
    assert lz.blocked.dtype == bool and lz.blocked[0:2, 0:3].dtype == bool


def test_a_row_across_more_than_four_tiles_keeps_the_dtype():
    T_k = 4 * lazy.COLS + 52
    K = RNG.standard_normal((T_k, 2))
    lz = LazyTrace(Scenario(Q=RNG.standard_normal((2, 2)), K=K, mask="none", dtype="float16"))
    for name in ("A", "O", "V", "S"):
        assert getattr(lz, name)[0].dtype == np.float16
    assert float(lz.A[1].astype(np.float64).sum()) == pytest.approx(1.0, abs=2e-3)
    wide = LazyTrace(Scenario(Q=np.ones((2, 2)), K=np.ones((3, 2)), V=np.ones((3, T_k)), mask="none", dtype="float16"))
    assert wide.O[0].dtype == np.float16 and wide.O[0].shape == (T_k,)


def test_tiles_past_the_first_cols_columns():
    T, T_k = 3, lazy.COLS + 88
    Q, K = RNG.standard_normal((T, 2)), RNG.standard_normal((T_k, 2))
    lz = LazyTrace(Scenario(Q=Q, K=K, mask="none"))
    A = softmax_rows(Q @ K.T / np.sqrt(2))
    np.testing.assert_allclose(lz.A[0:T, 0:10], A[:, :10], rtol=1e-12)
    np.testing.assert_allclose(lz.A[0:T, 500:600], A[:, 500:600], rtol=1e-12)
    np.testing.assert_allclose(lz.O[0:T, 505:520], A[:, 505:520], rtol=1e-12)  # V = I: O = A
    np.testing.assert_array_equal(lz.V[515, 510:520], np.eye(T_k)[515, 510:520])


def test_h_and_eff_of_part_of_a_block():
    T = 40
    Q, K = RNG.standard_normal((T, 3)), RNG.standard_normal((T, 3))
    lz = LazyTrace(Scenario(Q=Q, K=K, mask="none"))
    A = softmax_rows(Q @ K.T / np.sqrt(3))
    H = -(A * np.log2(A)).sum(axis=1)
    np.testing.assert_allclose(lz.H_rows(3, 7), H[3:7], rtol=1e-12)
    np.testing.assert_allclose(lz.H_rows(20, 25), H[20:25], rtol=1e-12)
    np.testing.assert_allclose(lz.H[14:18], H[14:18], rtol=1e-12)  # across two blocks
    assert lz.H_rows(5, 5).shape == (0,) and lz.H[5:5].shape == (0,)
    assert lz.H_rows(16, 16).shape == (0,) and lz.H[32:32].shape == (0,)  # empty at a block's start: no block
    assert np.ndim(lz.H[5]) == 0 and lz.H[5] == pytest.approx(H[5], rel=1e-12)
    assert lz.eff[6] == pytest.approx(2 ** H[6], rel=1e-12)


def test_a_lazy_rows_vector_is_float64():
    v = LazyRows(4, lambda r0, r1: np.arange(r0, r1))
    assert v[0:4].dtype == np.float64 and v[0:4].tolist() == [0.0, 1.0, 2.0, 3.0] and np.ndim(v[2]) == 0 and len(v) == 4


def test_each_trace_holds_its_scenario_and_a_new_serial():
    s = Scenario(Q=np.ones((3, 2)), K=np.ones((3, 2)))
    a, b = LazyTrace(s), LazyTrace(s)
    assert a.scenario is s and isinstance(a.serial, int) and b.serial > a.serial


def test_the_row_statistics_of_the_last_64_blocks_are_kept():
    T = (lazy.CACHE + 1) * lazy.ROWS
    lz = LazyTrace(Scenario(Q=RNG.standard_normal((T, 2)), K=RNG.standard_normal((6, 2)), mask="none"))
    lz.H_rows(0, T)
    assert len(lz._stats) == lazy.CACHE and not lz.has_stats(0) and lz.has_stats(T - lazy.ROWS)


def test_the_last_twelve_reads_are_remembered_in_order():
    m, _ = recorded(rows=1, cols=45)
    for t in range(14):
        m[t, 0:45]
    assert m.recent_keys() == [(t, 0) for t in range(2, 14)] and lazy.RECENT == 12


def test_a_matrix_warms_the_direct_reads_and_tiles_another_read(tiles_computed):
    old, _ = recorded()
    new, calls = recorded()
    old[5], old[0:3, 0:4]
    new.warm(old.recent_keys())
    assert sorted(calls) == [(0, 8, 0, 4), (5, 6, 0, 45)]
    new[5], new[0:3, 0:4]
    assert tiles_computed(new) == 2


def test_warm_stops_between_the_row_blocks_and_the_tiles(tiles_computed):
    T = 600
    s = Scenario(Q=RNG.standard_normal((T, 2)), K=RNG.standard_normal((T, 2)), V=RNG.standard_normal((T, 2)))
    old = LazyTrace(s)
    old.A[100:103, 0:5], old.H_rows(300, 301)
    new = LazyTrace(s.with_(c=2.0))
    new.warm(old, cancelled=lambda: len(new._stats) == 2)  # both blocks done, then a newer change came
    assert new.has_stats(96) and new.has_stats(288) and tiles_computed(new.A) == 0


def test_bounds_of_m_and_an_unknown_name():
    for fill, lo in (("-inf", 0.0), ("-1e9", -1e9)):
        lz = LazyTrace(Scenario(Q=np.ones((3, 2)), K=np.ones((3, 2)), fill=fill))
        assert lz.bounds("M") == (lo, 0.0)
    with pytest.raises(KeyError, match="Y"):
        lz.bounds("Y")


def test_warm_cost_without_v_counts_the_scores_only():
    T = 100
    old = LazyTrace(Scenario(Q=RNG.standard_normal((T, 3)), K=RNG.standard_normal((T, 3))))
    old.H_rows(0, 1), old.H_rows(40, 41)
    assert lazy.warm_cost(old) == 2 * lazy.ROWS * T * 3  # two blocks, each a pass over T' keys of d_k


def test_ranks_take_the_dtype_and_singular_values_the_scale():
    Q = np.array([[1.0, 0.0], [0.0, 2.0**-5]])  # S = diag(1, 2⁻¹⁰) / √2, exact in float16; Q of rank 2 in it
    sv = np.array([1.0, 2.0**-10]) / np.sqrt(2)
    for dtype, eps in (("float16", np.finfo(np.float16).eps), ("float64", np.finfo(np.float64).eps)):
        info = LazyTrace(Scenario(Q=Q, K=Q, mask="none", dtype=dtype, c=3.0)).rank_info()
        assert info["S"] == int((sv > 2 * eps * sv[0]).sum())  # float16: 1, float64: 2
        np.testing.assert_allclose(info["singular_values"], 3.0 * sv, rtol=1e-12)


def test_weights_of_empty_and_overflowing_rows_raise_no_numpy_warning():
    """An all −inf row's weights are NaN, and a float16 score that overflowed gives NaN or 0;
    neither writes a RuntimeWarning over the explorer's screen."""
    Q = np.zeros((3, 2))
    Q[1] = 300.0
    s = Scenario(Q=Q, K=np.full((3, 2), 300.0), mask="none", padding=(1, 2, 3), fill="-inf", dtype="float16")
    near = Scenario(Q=[[1e154, 0.0], [0.0, 1.0]], K=[[1e154, 0.0], [0.0, 1.0]], fill="min")
    wide = Scenario(Q=np.full((2, 2), 150.0), K=np.full((3, 2), -150.0), fill="min", dtype="float16")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        A = LazyTrace(s).A[0:3, 0:3]
        A_near = LazyTrace(near).A[0:2, 0:2]
        X_wide = LazyTrace(wide).S_masked[0:2, 0:3]  # -31820 + (-65504) overflows to -inf in float16
    assert np.isnan(A).all() and X_wide[0, 1] == -np.inf
    assert A_near[0].tolist() == [1.0, 0.0]

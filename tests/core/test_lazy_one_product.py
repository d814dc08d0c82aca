"""Issue 34: the lazy A (the explorer above 512 tokens) against the full path, cell by cell.

Before, row_stats took each row's max m and sum l from one product of S and a grid's tile from
another; a BLAS that rounds the two calls differently (2.5 ulp in float32, times c = 1000) put
a row of A at 0.925. Now every read of S cuts its cells from one product per block
(Source.product). Each test runs on the machine's BLAS and on a stand-in for a BLAS (blas_standin.py)
whose rounding depends on the call's shape (this machine's rounds 16 x 512 and 16 x 735 calls
alike, so only the stand-in shows the old failure at 735 tokens; a 1-row read shows it on both).
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.lazy import LazyTrace
from attn_tui.core.scenario import Scenario
from tests.core.blas_standin import BLAS, EPS64, blas, dtype_tols, issue_case


def check_rows_and_cells(s: Scenario, A_lazy, rows=None):
    """Row sums of the lazy A within the dtype's rounding; each cell against the full path's A;
    each cell the softmax of the displayed S + M (in float64) rounded to the dtype."""
    tr, lz = s.run(), LazyTrace(s)
    rows = range(s.T) if rows is None else rows
    eps, sub, sum_tol = dtype_tols(tr.A.dtype, s.T_k)
    A = np.asarray(A_lazy, dtype=np.float64)
    full = tr.A[list(rows)].astype(np.float64)
    nan = np.isnan(full).all(axis=1)
    assert (np.isnan(A).all(axis=1) == nan).all()
    dev = np.abs(A[~nan].sum(axis=1) - 1.0)
    assert dev.max(initial=0.0) <= sum_tol, f"{int((dev > sum_tol).sum())} rows off, worst {dev.max()}"
    # Against attention(): the two paths multiply Q Kᵀ in calls of other shapes, so a score may
    # differ by a few ulps of the row's largest |S| (4: two roundings of each side); a shift δ of
    # the scores moves A_i by at most a factor e^(2δ) (log A_i = x_i − logsumexp x). The full
    # path's own softmax in the dtype adds exp's, the division's and a T-term sum's rounding
    # ((4 + log2 T) eps), and a weight below the normal range is off by up to a subnormal.
    S = np.abs(np.where(tr.blocked, 0.0, tr.S.astype(np.float64)))[list(rows)]
    delta = 4 * eps * S.max(axis=1, keepdims=True)
    tol = full * (np.expm1(2 * delta) + (4 + np.log2(s.T_k)) * eps) + 2 * sub
    bad = np.abs(A - full) > tol
    assert not bad[~nan].any(), f"{int(bad[~nan].sum())} cells off the full path"
    # Against the S + M the explorer shows: A is its softmax in float64 rounded once to the dtype
    # (eps/2 of the weight, or half a subnormal), with m and l's float64 sums (2 T eps64).
    X = np.asarray(lz.S_masked, dtype=np.float64)[list(rows)]
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(X - X.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
    own = np.abs(A - ref) > ref * (eps / 2 + 2 * s.T_k * EPS64) + sub / 2
    assert not own[~nan].any(), f"{int(own[~nan].sum())} cells are not the softmax of the S shown"


@pytest.mark.parametrize("kind", BLAS)
def test_the_issues_case_every_row_sums_to_1_and_every_cell_is_the_full_paths(kind, monkeypatch):
    blas(kind, monkeypatch)
    s = issue_case()
    lz = LazyTrace(s)
    check_rows_and_cells(s, np.asarray(lz.A))  # the whole matrix, read in the grids' 16 x 512 tiles
    check_rows_and_cells(s, np.stack([lz.A[t] for t in (0, 273, 274, 734)]), rows=(0, 273, 274, 734))


MASKS = [
    dict(mask="none"),
    dict(mask="causal"),
    dict(mask="window", window=40, fill="-inf"),
    dict(mask="causal", padding=(1, 2, 600, 700), fill="min"),
    dict(mask="none", padding=tuple(range(1, 736, 2)), fill="-inf"),
]


@pytest.mark.parametrize("kind", BLAS)
@pytest.mark.parametrize("kw", MASKS)
@pytest.mark.parametrize(("dtype", "c"), [("float32", 1000.0), ("float64", 1000.0), ("float16", 1.0)])
def test_each_dtype_and_mask(kind, kw, dtype, c, monkeypatch):
    """float16 at c = 1 unscaled (|S| ~ 400: c = 1000 overflows float16 and the door refuses it)."""
    blas(kind, monkeypatch)
    s = issue_case(dtype, c=c, **dict(kw))
    check_rows_and_cells(s, np.asarray(LazyTrace(s).A))


@pytest.mark.parametrize("kind", BLAS)
def test_the_issues_milder_case_c_1_and_entries_times_20(kind, monkeypatch):
    """Unscaled, c = 1, Q, K, V ~ N(0, 9) x 20: row sums drifted by up to 0.2 %."""
    blas(kind, monkeypatch)
    rng = np.random.default_rng(20)
    Q, K, V = (60.0 * rng.standard_normal((735, 64)) for _ in range(3))
    s = Scenario(Q=Q, K=K, V=V, mask="none", scaled=False, c=1.0, dtype="float32")
    check_rows_and_cells(s, np.asarray(LazyTrace(s).A))


@pytest.mark.parametrize("kind", BLAS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_whole_row_read_at_once_is_the_tiles_row(kind, dtype, monkeypatch, tiles_computed):
    """Above 4 tiles of keys a chart's row is read on its own (LazyMatrix.block); it was a 1-row
    product, which this machine's BLAS rounds unlike the 16-row one the row statistics used
    (float32 rows summed to 1 ± 0.016, float64 ones to 1 ± 6e-11, on OpenBLAS SkylakeX)."""
    blas(kind, monkeypatch)
    s = issue_case(dtype, T=2600)
    lz = LazyTrace(s)
    rows = (5, 100, 1300, 2000, 2599)
    got = np.stack([lz.A[t] for t in rows])
    assert tiles_computed(lz.A) == len(rows)  # each row on its own, not in 16-row tiles
    check_rows_and_cells(s, got, rows=rows)
    tiles = LazyTrace(s).A  # the same rows read in 16 x 512 tiles: the same products, so the same bits
    for t, row in zip(rows, got):
        np.testing.assert_array_equal(row, tiles[t - t % 16 : t - t % 16 + 16, 0:2600][t % 16])

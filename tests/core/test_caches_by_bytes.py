"""STYLE 19 / issue 44: the large-T matrices' tiles are kept by their bytes, not their count: a row of
16,384 keys read tile by tile, or many one-row reads across every key (a chart's row), never holds
more than lazy_matrix.CACHE_BYTES per matrix."""

from __future__ import annotations

import numpy as np

from attn_tui.core import lazy_matrix
from attn_tui.core.lazy_matrix import LazyMatrix


def test_a_lazy_matrix_holds_at_most_its_bytes():
    T = 16384
    m = LazyMatrix(
        (T, T), np.float64, lambda r0, r1, c0, c1: np.arange(r0, r1, dtype=float)[:, None] + np.zeros(c1 - c0)
    )
    for r in range(0, 2048, 2):  # one-row reads across every key: 256 KiB each
        assert m[r, :].shape == (T,) and m[r, 0] == r
    for r in range(0, 4096, lazy_matrix.ROWS):  # whole tiles
        assert m[r : r + 2, 0:512][1, 0] == r + 1
    held = sum(t.nbytes for t in m._tiles.values())
    assert held <= lazy_matrix.CACHE_BYTES and m._held == held
    assert np.array_equal(m[2046, 10:20], np.full(10, 2046.0))  # still right after the drops

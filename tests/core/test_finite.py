"""core/finite.py: the one finite min/max (the grids, the palette, the State and the stream read it)."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.finite import finite_range


def test_the_range_skips_nan_and_inf_and_is_nan_when_nothing_is_finite():
    assert finite_range(np.array([[3.0, -np.inf], [np.nan, -1.5]])) == (-1.5, 3.0)
    assert finite_range(np.array([1, 7], dtype=np.int16)) == (1.0, 7.0)  # read as float64
    for empty in (np.array([np.nan, np.inf]), np.zeros((0, 3))):
        lo, hi = finite_range(empty)
        assert math.isnan(lo) and math.isnan(hi)


def test_float16_extremes_come_back_exactly():
    big = np.finfo(np.float16).max
    assert finite_range(np.array([big, -big, np.inf], dtype=np.float16)) == (-float(big), float(big))


def test_the_docstring_example_holds():
    import doctest

    from attn_tui.core import finite

    assert doctest.testmod(finite).failed == 0

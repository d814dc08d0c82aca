"""Number formatting and colour buckets of the grids."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.tui.widgets.palette import RDBU, VIRIDIS, buckets, cell_width, fmt


@pytest.mark.parametrize("x, width, want", [
    (0.8698, 5, "0.870"), (-0.5, 6, "-0.500"), (-0.5, 5, "-.500"), (3.0, 5, "3.000"),
    (-1e9, 6, "-1e9"), (-65504.0, 6, "-65504"), (float("nan"), 5, "NaN"), (float("-inf"), 5, "-inf"),
    (-1e-9, 5, "-1e-9"), (1.23e-5, 6, "1.2e-5"), (123456789.0, 6, "1.23e8"), (-1.7976931348623157e308, 5, "-big"),
])
def test_fmt(x, width, want):
    assert fmt(x, width) == want
    assert len(fmt(x, width)) <= width


@pytest.mark.parametrize("x", [1e-300, -3.14159, 42.0, 1e6, -1e12, 7e300])
def test_fmt_never_lies_about_magnitude(x):
    s = fmt(x, 6)
    if s not in ("big", "-big"):
        assert math.isclose(float(s), x, rel_tol=0.05, abs_tol=5e-4)


def test_cell_width():
    assert cell_width(np.array([[0.0, 0.87, 9.99]])) == 5
    assert cell_width(np.array([[0.0, -0.5]])) == 6
    assert cell_width(np.array([[np.nan, np.inf]])) == 5


def test_buckets():
    a = np.array([[0.0, 0.5, 1.0, np.nan]])
    assert buckets(a, "seq").tolist() == [[0, len(VIRIDIS) // 2, len(VIRIDIS) - 1, -1]]
    s = np.array([[-2.0, 0.0, 2.0, -np.inf]])
    assert buckets(s, "div").tolist() == [[0, len(RDBU) // 2, len(RDBU) - 1, -1]]
    assert buckets(np.zeros((2, 2)), "div").tolist() == [[len(RDBU) // 2] * 2] * 2

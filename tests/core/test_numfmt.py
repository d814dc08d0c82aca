"""The grids' number format never prints a number that is not a float (review: '-2e308')."""

import numpy as np
import pytest

from attn_tui.core.numfmt import fit_number


@pytest.mark.parametrize("width", [6, 9])
def test_the_float64_extremes_print_as_floats(width):
    """Rounding 1.797e308 up would print a number beyond every float: the mantissa is cut instead."""
    for x in (float(np.finfo(np.float64).min), float(np.finfo(np.float64).max)):
        text = fit_number(x, width)
        assert len(text) <= width
        y = float(text)
        assert np.isfinite(y) and abs(y) <= abs(x) and y * x > 0, (x, text)


def test_the_float64_min_fill_reads_as_itself_in_a_wide_cell():
    assert fit_number(float(np.finfo(np.float64).min), 9) == "-1.79e308"
    assert fit_number(-1e9, 6) == "-1e9" and fit_number(0.870049, 5) == "0.870"

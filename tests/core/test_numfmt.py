"""core.numfmt.fit_number on each of its rules, one case per rule, the expected text worked out from
the rule (written to kill the mutants of core/numfmt.py, scripts/mutation.sh):

3 decimals where they fit, else 2, 1, 0; a "-0." start may drop its 0; a rounded -0 loses its
sign; tiny nonzero numbers and numbers too wide for any decimals go to short e-notation with
as many mantissa digits as fit (3 at most); near the float range the mantissa is cut, not
rounded past it; what no notation fits is "~0"/"-~0" (tiny) or "big"/"-big", cut to the width.

The grids' number format never prints a number that is not a float (review: '-2e308').
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.numfmt import fit_number

BIG = float(np.finfo(np.float64).max)  # 1.7976931348623157e308

CASES = [
    # non-finite
    (math.nan, 5, "NaN"),
    (math.inf, 5, "inf"),
    (-math.inf, 5, "-inf"),
    # decimals: the most that fit, 3 at most
    (12.3456, 10, "12.346"),
    (12.3456, 5, "12.35"),
    (12.3456, 4, "12.3"),
    (12.3456, 3, "12"),
    # 5e-4 itself rounds to 0.001 (it is 5.0000000000000001e-4): not a tiny number
    (5e-4, 8, "0.001"),
    # -0.0 and a negative that rounds to zero print without the sign
    (-0.0, 10, "0.000"),
    (-0.004, 3, "0.0"),
    (-0.004, 4, "0.00"),
    # "-0.25" in 4 characters: "-.25" keeps both decimals
    (-0.25, 4, "-.25"),
    (-0.25, 6, "-0.250"),
    (-0.004, 5, "-.004"),
    # tiny: e-notation keeping sign and magnitude; what cannot fit is ~0
    (1.2e-5, 10, "1.2e-5"),
    (-3e-9, 10, "-3e-9"),
    (1e-300, 3, "~0"),
    (-1e-300, 3, "-~0"),
    (-1e-300, 2, "-~"),
    # wide: e-notation with up to 3 mantissa digits, trailing zeros dropped
    (1.23456e9, 9, "1.235e9"),
    (1.23456e9, 6, "1.23e9"),
    (-2e9, 10, "-2e9"),
    (1e300, 3, "big"),
    (-1e300, 4, "-big"),
    (1e300, 2, "bi"),
    # the float range's ends: the mantissa cut, never rounded up past the largest float
    (BIG, 10, "1.797e308"),
    (-BIG, 11, "-1.797e308"),
    (BIG, 8, "1.79e308"),
    (BIG, 7, "1.7e308"),
    (BIG, 4, "big"),  # "1e308" is 5 characters
]


@pytest.mark.parametrize("x, width, want", CASES)
def test_each_rule(x, width, want):
    assert fit_number(x, width) == want


@pytest.mark.parametrize("width", range(3, 12))
@pytest.mark.parametrize("x", [0.0, 1.5, -1.5, 0.0123, -0.0123, 123.456, -98765.4321, 6.02e23, -1.6e-19, BIG, -BIG])
def test_never_wider_and_never_a_wrong_number(x, width):
    """Whatever the width: at most that many characters, and the number printed (when it is
    one) is x to the precision printed: its relative error is under one unit of its last digit."""
    text = fit_number(x, width)
    assert len(text) <= width
    if text.lstrip("-") in ("big", "~0", "bi", "~", "b"):
        return
    y = float(text)
    mantissa = text.split("e")[0]
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0 ** (-digits) * (10.0 ** int(text.split("e")[1]) if "e" in text else 1.0)
    assert abs(y - x) <= unit, (x, width, text)


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

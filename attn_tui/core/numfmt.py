"""Numbers as the explorer prints them: at most ``width`` characters, never a cut-off, wrong number.

Used by the grids (widgets/grid_cells.py, the legend in widgets/palette.py), the cell inspector
(core.derive) and the heads screen (views/heads_view.py, views/heads_tour.py). The lenses, experiments
and tour panes print numbers to a number of decimals instead, with tui/fmt.py's ``fmt``.
"""

from __future__ import annotations

import math


def fit_number(x: float, width: int) -> str:
    """``x`` in at most ``width`` characters, 3 decimals where they fit.

    NaN -> "NaN", ±inf -> "inf"/"-inf"; large numbers go to short e-notation ("-1e9",
    "-6.6e4"), and so do tiny nonzero ones that would print 0.000 ("-1.2e-5", "3e-9");
    a number no notation fits in ``width`` is "big"/"-big" (tiny: "~0"), never cut off.
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x != 0 and abs(x) < 5e-4:  # would print 0.000: keep the sign and magnitude, "-1.2e-5"
        return _short_e(x, width) or ("~0" if x > 0 else "-~0")[:width]
    for d in (3, 2, 1, 0):
        s = f"{x:.{d}f}"
        if s.startswith("-") and float(s) == 0:
            s = s[1:]
        if len(s) <= width:
            return s
        if s.startswith("-0."):
            s = "-" + s[2:]
            if len(s) <= width:
                return s
    return _short_e(x, width) or ("-big" if x < 0 else "big")[:width]  # never a cut-off, wrong number


def _short_e(x: float, width: int) -> str | None:
    """E-notation with as many mantissa digits as fit in ``width``: "-6.6e4", "-1e9", "1e-5"; else None."""
    for d in (3, 2, 1, 0):
        m, e = f"{x:.{d}e}".split("e")
        if not math.isfinite(float(f"{m}e{e}")):  # rounded past the float range (-1.8e308): cut instead
            m, e = f"{x:.{d + 6}e}".split("e")
            m = m[: m.index(".") + d + 1] if d else m[: m.index(".")]
        m = m.rstrip("0").rstrip(".") if "." in m else m
        if len(short := f"{m}e{int(e)}") <= width:
            return short
    return None

"""Bar lengths plotext can draw: finite, normal floats, divided by a power of ten when huge or tiny.

Pure NumPy, shared by the chart's view (views/chart.py decides the power of ten) and the widgets
that draw bars (plotext raises on inf/NaN/huge numbers and on subnormal ranges).
"""

from __future__ import annotations

import numpy as np

LIMIT = 1e6
TINY = np.finfo(np.float64).tiny  # the smallest normal float64, 2.2e-308


def sanitise(values) -> list[float]:
    """Finite, normal floats only: NaN -> 0, ±inf and huge -> ±LIMIT, subnormal -> 0.

    plotext raises OverflowError on tick labels for a range of subnormal width
    ([1e-310, 0]); a subnormal bar is drawn as no bar, which is what it is at any scale.
    """
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=LIMIT, neginf=-LIMIT)
    v[np.abs(v) < TINY] = 0.0
    return np.clip(v, -LIMIT, LIMIT).tolist()


def score_bars(scores, blocked) -> tuple[list[float], int]:
    """Bar lengths for a scores chart and the power of ten they are divided by.

    Masked keys and non-finite scores get no bar (0; their labels say why). When the
    largest remaining |score| is 1e5 or more, or under 1e-3 but not 0, every bar is
    divided by 10^power so the axis stays readable (1e300 -> 1 with "×1e300" in the
    title; a subnormal 4.9e-324 -> 4.9 with "×1e-324")."""
    v = np.asarray(scores, dtype=np.float64).copy()
    v[np.asarray(blocked, dtype=bool) | ~np.isfinite(v)] = 0.0
    big = float(np.max(np.abs(v))) if v.size else 0.0
    power = int(np.floor(np.log10(big))) if big >= 1e5 or 0 < big < 1e-3 else 0
    half = power // 2  # in two steps: 10.0**-324 is 0 and 10.0**324 is inf
    return sanitise(v / 10.0**half / 10.0 ** (power - half)), power

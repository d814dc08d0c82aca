"""Colour buckets and number formatting for grids (pre-built Styles, no per-cell work).

Sequential: viridis (colour-blind safe) for weights in [0, 1] such as A.
Diverging: blue (negative) - dark grey (0) - red (positive), RdBu hues, for signed
matrices such as S, Q, K. Masked cells get a muted grey, NaN a magenta warning.
"""

from __future__ import annotations

import math

import numpy as np
from rich.style import Style

VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e",
           "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725")
# Diverging around a dark neutral (the terminal's background), so zeros stay quiet:
# blue for negative, red for positive (ColorBrewer RdBu hues), stronger = larger |value|.
RDBU = ("#92c5de", "#4393c3", "#2166ac", "#1d3557", "#262626",
        "#5a1e1e", "#b2182b", "#d6604d", "#f4a582")


def _text_on(hex_bg: str) -> str:
    r, g, b = (int(hex_bg[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _styles(colours):
    return tuple(Style(color=_text_on(c), bgcolor=c) for c in colours)


SEQ_STYLES = _styles(VIRIDIS)
DIV_STYLES = _styles(RDBU)
PLAIN = Style(color="#d0d0d0", bgcolor="#1e1e1e")
BLOCKED = Style(color="#7a7a7a", bgcolor="#2f2f2f", strike=True)
MASKED = Style(color="#c0c0c0", bgcolor="#3a3a3a", italic=True)
OPEN = Style(color="#101010", bgcolor="#8fbc8f")
NAN = Style(color="#ffffff", bgcolor="#8e0152", bold=True)
LABEL = Style(color="#c8c8c8", bgcolor="#121212", bold=True)
# HEADER differs from LABEL by one shade so the two segments are never merged (an SVG
# renderer may drop the leading spaces of a merged segment).
HEADER = Style(color="#d0d0d0", bgcolor="#121212", bold=True)
SELECTED_LABEL = Style(color="#000000", bgcolor="#ffd75f", bold=True)
SELECTED_ROW = Style(bold=True, underline=True)
CURSOR = Style(color="#000000", bgcolor="#5fd7ff", bold=True)
GAP = Style(bgcolor="#121212")


def buckets(values: np.ndarray, kind: str) -> np.ndarray:
    """Bucket index per cell (same shape as ``values``); -1 for NaN/inf.

    kind "seq": [0, 1] split into len(VIRIDIS) bins. kind "div": symmetric around 0,
    scaled by max |finite value|, into len(RDBU) bins. Others: all 0.
    """
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    out = np.full(v.shape, -1, dtype=np.int64)
    if kind == "seq":
        n = len(VIRIDIS)
        out[finite] = np.clip((v[finite] * n).astype(np.int64), 0, n - 1)
    elif kind == "div":
        n = len(RDBU)
        m = float(np.max(np.abs(v[finite]))) if finite.any() else 0.0
        scaled = v[finite] / m if m > 0 else np.zeros(int(finite.sum()))
        out[finite] = np.clip(np.rint((scaled + 1) / 2 * (n - 1)).astype(np.int64), 0, n - 1)
    else:
        out[finite] = 0
    return out


def fmt(x: float, width: int) -> str:
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
        m = m.rstrip("0").rstrip(".") if "." in m else m
        if len(short := f"{m}e{int(e)}") <= width:
            return short
    return None


def cell_width(values: np.ndarray) -> int:
    """5 characters when every finite value is in [0, 10) ("0.870"), else 6 ("-0.500")."""
    v = np.asarray(values, dtype=np.float64)
    f = v[np.isfinite(v)]
    if f.size == 0 or (f.min() >= 0 and f.max() < 9.9995):
        return 5
    return 6

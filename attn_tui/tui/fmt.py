"""Number formatting shared by the lenses, experiments and tour panes.

Three decimals where they mean something, scientific notation for the tiny
numbers the lesson cares about (1.9e-12 bits, a 3.3e-16 difference), and an
exact 0 printed as ``0`` so "exactly zero" reads as such.
"""

from __future__ import annotations

import math

import numpy as np


def fmt(x, digits: int = 3) -> str:
    """One number: 'NaN', 'inf', '0', '1.9e-12', '0.870', '73,728' (ints)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return f"{int(x):,}"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    if abs(x) < 10**-digits or abs(x) >= 1e6:
        return f"{x:.{max(1, digits - 2)}e}"
    return f"{x:.{digits}f}"


def knob(x: float, decimals: int) -> str:
    """The knob c (or c/√d_k) with ``decimals`` fixed decimals, or 3 significant digits where the fixed
    form would keep fewer: c = 0.001 over √d_k = 2 is "0.0005", not "0.001"; c = 0.0012 in a 2-decimal
    title is "0.0012", not "0.00". "1.000", "10.83" and "0.513" stay as they are."""
    x = float(x)
    if x == 0 or not math.isfinite(x) or abs(x) >= 10.0 ** (2 - decimals):
        return f"{x:.{decimals}f}"
    s = f"{x:.3g}"
    if "e" in s:  # below 1e-4: "4.42e-05" -> "4.42e-5"
        m, e = s.split("e")
        s = f"{m}e{int(e)}"
    return s


def fmt_vec(v, digits: int = 3, most: int = 6) -> str:
    """A vector as '[0.870 0.043 …]', at most ``most`` entries then an ellipsis."""
    v = np.asarray(v).ravel()
    parts = [fmt(x, digits) for x in v[:most]]
    if v.size > most:
        parts.append(f"… ({v.size} in all)")
    return "[" + " ".join(parts) + "]"


def short_vec(v, most: int = 4) -> str:
    """A compact vector for small integer-like entries: '[2, 0, 0, 0]'."""
    v = np.asarray(v, dtype=np.float64).ravel()
    parts = [f"{x:g}" if np.isfinite(x) and abs(x - round(x, 2)) < 1e-12 else fmt(x, 2) for x in v[:most]]
    if v.size > most:
        parts.append("…")
    return "[" + ", ".join(parts) + "]"


def finite(values, fallback: float = 0.0):
    """A float64 copy with NaN/±inf replaced by ``fallback`` (plotext raises on them)."""
    a = np.asarray(values, dtype=np.float64).ravel()
    return np.where(np.isfinite(a), a, fallback)

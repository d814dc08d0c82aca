"""Colour buckets, number and label formatting for grids (the Styles are read once, not per cell).

Sequential: viridis (colour-blind safe) for weights in [0, 1] such as A.
Diverging: blue (negative) - dark grey (0) - red (positive), stronger with |value|, for signed
matrices such as S, Q, K. Masked cells get a muted grey, NaN a magenta warning.
The Styles come from CSS (app.tcss: ``MatrixGrid > .matrix-grid--seq-0`` ...) as a :class:`Look`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.dom import DOMNode

from ...core.finite import finite_range  # (lo, hi) of a whole ndarray when the view gave none
from ...core.labeltext import cut, fit, last_cluster
from ...core.numfmt import fit_number
from ..framework import attach, component_class_styles, use_component_styles

if TYPE_CHECKING:
    from textual.widget import Widget as _Host  # the checker sees the widget the mixin is mixed into
else:
    _Host = object

# The colours are defined in app.tcss only, as MatrixGrid component classes (a theme or a user's
# CSS restyles them); the code counts the buckets, seq-0 .. seq-9 and div-0 .. div-8 there
# (tests/tui/test_theme.py checks that app.tcss styles exactly these).
SEQ_BUCKETS = 10  # weights in [0, 1]: viridis
DIV_BUCKETS = 9  # signed values: blue (negative), the dark neutral at 0 (the middle bucket), red

ROLES = (
    "plain",
    "blocked",
    "masked",
    "open",
    "nan",
    "label",
    "header",
    "selected-label",
    "selected-row",
    "cursor",
    "gap",
)
SEQ = tuple(f"seq-{i}" for i in range(SEQ_BUCKETS))
DIV = tuple(f"div-{i}" for i in range(DIV_BUCKETS))
COMPONENTS = frozenset(f"matrix-grid--{name}" for name in ROLES + SEQ + DIV)


class Look(NamedTuple):
    """The grid's Rich Styles, read once from its component classes (not per cell)."""

    seq: tuple[Style, ...]
    div: tuple[Style, ...]
    plain: Style
    blocked: Style  # a masked cell of S, A, ...: struck through
    masked: Style  # a blocked cell of M itself
    open: Style
    nan: Style
    label: Style
    header: Style  # one shade off LABEL so the two segments are never merged (an SVG
    # renderer may drop the leading spaces of a merged segment)
    selected_label: Style
    selected_row: Style  # added to the cells of the selected query row
    cursor: Style
    gap: Style

    @classmethod
    def read(cls, style: Callable[[str], Style]) -> Look:
        """``style("matrix-grid--cursor")`` -> that class's Style (MatrixGrid.get_component_rich_style)."""
        get = {name: style(f"matrix-grid--{name}") for name in ROLES + SEQ + DIV}
        return cls(
            tuple(get[n] for n in SEQ), tuple(get[n] for n in DIV), **{n.replace("-", "_"): get[n] for n in ROLES}
        )


class _Sheet:
    """One app's grid styles: read with ``rules`` (the parsed style sheet, a new list at every
    reparse: a theme, its variables, a user's CSS) and ``classes`` (the app's: -light-mode ...)."""

    def __init__(self, rules, classes, styles: dict) -> None:
        self.rules, self.classes, self.styles = rules, classes, styles
        self.look: Look | None = None


_SHEETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # app -> _Sheet


# The rules name the classes under a grid (``MatrixGrid > .matrix-grid--seq-0``): they are read under a
# stand-in of that type, whichever widget reads them first. Read under the token view's text (the first
# to read after a dialog's style sheet was added), they matched nothing, and its shades went plain.
_GridStandIn = type("MatrixGrid", (DOMNode,), {"__doc__": "A node the grid rules match (CSS type MatrixGrid)."})


def _sheet(node: DOMNode) -> _Sheet:
    app = node.app
    sheet, rules, classes = _SHEETS.get(app), app.stylesheet.rules, app.classes
    if sheet is None or sheet.rules is not rules or sheet.classes != classes:
        styles, grid = {}, _GridStandIn()
        attach(grid, node)
        for name in sorted(COMPONENTS):  # what Textual does for each component class of each node
            styles[name] = component_class_styles(grid, name)
        sheet = _SHEETS[app] = _Sheet(rules, classes, styles)
    return sheet


def shared_styles(node: DOMNode) -> dict:
    """{component class: its styles} for every grid of ``node``'s app, the style sheet applied to
    the classes once per app, theme and style sheet, not by Textual to each grid's 30 classes at
    every style update (40 % of the first frame). So a rule styles every grid's classes alike:
    ``MatrixGrid > .matrix-grid--seq-0``, not ``#grid-A > .matrix-grid--seq-0``."""
    return _sheet(node).styles


def shared_look(node: DOMNode, style: Callable[[str], Style]) -> Look:
    """The :class:`Look` of :func:`shared_styles`, read (``style``: see Look.read) once per sheet."""
    sheet = _sheet(node)
    if sheet.look is None:
        sheet.look = Look.read(style)
    return sheet.look


class SharedStyles(_Host):
    """A widget mixin: get_component_rich_style("matrix-grid--seq-0") ... from :func:`shared_styles`
    (the widget declares no COMPONENT_CLASSES: Textual applies none of them to it)."""

    def get_component_styles(self, *names: str):
        use_component_styles(self, shared_styles(self))
        return super().get_component_styles(*names)

    def partial_style(self, name: str) -> Style:
        """``get_component_rich_style(name, partial=True)``, without the full style Textual computes
        with it and a Look does not read (a walk up the DOM per class: ~2 ms of the first frame)."""
        return self.get_component_styles(name).partial_rich_style


def span(lo: float, hi: float) -> float:
    """max |finite value| from the range (lo, hi); 0 when there is none."""
    m = max(abs(lo), abs(hi))
    return float(m) if np.isfinite(m) else 0.0


def buckets(values: np.ndarray, kind: str, scale: float | None = None) -> np.ndarray:
    """Bucket index per cell (same shape as ``values``); -1 for NaN/inf.

    kind "seq": [0, 1] split into SEQ_BUCKETS bins. kind "div": symmetric around 0,
    scaled by ``scale`` = max |finite value| of the whole matrix (of ``values`` when None;
    a grid passes the span of its matrix's range and buckets only the cells it draws),
    into DIV_BUCKETS bins. Others: all 0.
    """
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    out = np.full(v.shape, -1, dtype=np.int64)
    if kind == "seq":
        n = SEQ_BUCKETS
        out[finite] = np.clip((v[finite] * n).astype(np.int64), 0, n - 1)
    elif kind == "div":
        n = DIV_BUCKETS
        m = span(*finite_range(v)) if scale is None else scale
        scaled = v[finite] / m if m > 0 else np.zeros(int(finite.sum()))
        out[finite] = np.clip(np.rint((scaled + 1) / 2 * (n - 1)).astype(np.int64), 0, n - 1)
    else:
        out[finite] = 0
    return out


LABEL_MAX = 8  # longer row labels end in "…" (the full label is in the inspector)


def fit_label(label: str, width: int = LABEL_MAX) -> str:
    """``label`` in at most ``width`` cells: "t1 verylongword" -> "t1 very…", "t118 tokenizer" ->
    "t118 to…" (its position kept whole, core.labeltext.fit; never inside an emoji)."""
    return fit(label, width)


def headers(labels, width: int) -> list[str]:
    """Column headers in ``width`` cells: whole if all fit, else first words ("t1"), abbreviated."""
    if all(len(s) <= width for s in labels):
        return list(labels)
    return [abbrev(s.split()[0] if s.split() else s, width) for s in labels]


_WIDE: dict = {}  # (id(labels), width) -> (labels, answer): the last few asked of header_width


def header_width(labels: tuple, width: int, cap: int = 8) -> int:
    """``width``, or wider (up to ``cap``) when fitting a column header into ``width`` would drop a
    digit: "t11995" abbreviated to 5 cells read "t1195", the name of another token. Cached per
    labels object (a large scenario's 16,384 key labels are the same tuple every keypress)."""
    hit = _WIDE.get((id(labels), width))
    if hit is not None and hit[0] is labels:
        return hit[1]
    need = width
    for s in labels:
        first = s.split()[0] if s.split() else s
        if len(first) > need and any(c.isdigit() for c in first[width - 1 : -1]):
            need = min(cap, len(first))
    if len(_WIDE) >= 8:
        _WIDE.pop(next(iter(_WIDE)))
    _WIDE[(id(labels), width)] = (labels, need)
    return need


def abbrev(label: str, width: int) -> str:
    """Fit ``label`` in ``width``, keeping its last character ("spare1" -> "spar1"); cut between
    grapheme clusters (core.labeltext), so an emoji is whole or gone."""
    if len(label) <= width:
        return label
    tail = last_cluster(label)
    return cut(label, width - len(tail)) + tail if len(tail) < width else cut(label, width - 1) + "…"


def width_for(lo: float, hi: float, by_sign: bool = False) -> int:
    """5 characters when every finite value is in [0, 10) ("0.870"), else 6 ("-0.500"), and 9 when a
    value is beyond ±1e100 (the float64 min fill prints "-1.79e308": in 6 it read -2e308, no float).
    lo, hi: the finite min and max (NaN when none is finite). by_sign: 5 for any values >= 0, so
    that scaling them does not change the width ("10.36", "123.5", "1.2e4": fewer decimals)."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or (lo >= 0 and (hi < 9.9995 or by_sign and hi < 1e100)):
        return 5
    return 9 if span(lo, hi) >= 1e100 else 6


def legend(kind: str, values, width: int, scale: float | None = None) -> tuple[str, list[int], str] | None:
    """The colour bar for a grid's header cell: (low end, bucket per bar cell, high end), e.g.
    ("0", [0, 2, 5, 7, 9], "1") for weights, ("-3", [0, 4, 8], "3") for signed values scaled by
    max |value| (``scale`` when given, else read off ``values``), or ("±1e2", [...], "") when the two
    ends do not fit; None when even that does not fit in ``width`` cells (a space kept after it) or
    the grid has no colour scale."""
    if kind == "seq":
        lo, hi, n = "0", "1", SEQ_BUCKETS
    elif kind == "div":
        m = span(*finite_range(values)) if scale is None else scale
        if m == 0:
            return None
        # The most precise form that fits: "2.9" in a wide label column, "3" in the 8 cells of "t1 mat"
        # (2.9 to one digit), "12", ".5", "1e3"; each is max |value| to the digits it shows.
        first = f"{m:.2g}" if 1e-2 <= m < 100 else fit_number(m, 4) if m >= 100 else compact(m, 2)  # "1e9", "5e-3"
        forms = (first, compact(m, 2), compact(m, 1))
        his = [hi[1:] if hi.startswith("0.") else hi for hi in forms]  # ".87": the legend has few cells
        fits = next((h for h in his if width - 2 - 2 * len(h) >= 2), None)
        lo, hi = ("-" + fits, fits) if fits else ("±" + his[-1], "")  # "±1e2" bar: no room for both ends
        n = DIV_BUCKETS
    else:
        return None
    cells = width - 1 - len(lo) - len(hi)
    if cells < 2:
        return None
    return lo, [round(i * (n - 1) / (cells - 1)) for i in range(cells)], hi


def compact(m: float, digits: int) -> str:
    """``m`` > 0 in ``digits`` significant digits, as short as it goes: "3", "12", "0.5", "1.5e2", "1e3",
    "5e-5" (no "+" or leading zero in the exponent)."""
    s = f"{m:.{digits}g}"
    if "e" in s:
        mant, e = s.split("e")
        s = f"{mant}e{int(e)}"
    return s


def legend_segments(kind: str, scale: float, width: int, look: Look) -> list[Segment]:
    """A grid header's label cell: its colour bar with the range ("-3" bar "3"), when it fits;
    ``scale``: the matrix's max |finite value|."""
    bar = legend(kind, None, width, scale)
    if bar is None:
        return [Segment(" " * width, look.label)]
    lo, buckets, hi = bar
    ramp = look.seq if kind == "seq" else look.div
    # grounds as the cells', each with a bar as tall as its |value|, in the cell's own text colour: the
    # legend reads as a colour bar, not as two stray numbers, in 16 colours and under NO_COLOR too
    cells = [Segment(ramp_glyph(kind, b), Style(color=ramp[b].color, bgcolor=ramp[b].bgcolor)) for b in buckets]
    return [Segment(lo, look.label), *cells, Segment(hi + " ", look.label)]


BARS = "▁▂▃▄▅▆▇█"


def ramp_glyph(kind: str, bucket: int) -> str:
    """The legend's glyph for ``bucket``: a bar as tall as the bucket's |value| (weights: the value;
    signed values: its distance from 0, so the bar dips to the middle)."""
    if kind == "seq":
        frac = bucket / (SEQ_BUCKETS - 1)
    else:
        mid = (DIV_BUCKETS - 1) / 2
        frac = abs(bucket - mid) / mid
    return BARS[round(frac * (len(BARS) - 1))]

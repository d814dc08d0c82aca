"""The cells of one grid row: the text and a style code per cell (MatrixGrid's drawing, no Textual).

Only the columns drawn are read, ``values[r, c0:c1]`` (an ndarray, or any object with
``.shape`` and 2-D slicing, e.g. a lazy matrix), so a grid never reads a whole matrix to
draw a screenful of it. Comparing two rows' cells tells which cells a new matrix changed:
only those are repainted (:func:`changed_runs`).
"""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style

from ...core.diagnose import NO_CEILING
from ...core.numfmt import fit_number  # the grids' number format, shared with the inspector (core.derive)
from . import palette

# Style codes besides a bucket index (>= 0).
NAN, BLOCKED, MASKED, OPEN, PLAIN = -1, -2, -3, -4, -5


def row_cells(
    values, blocked, kind: str, r: int, c0: int, c1: int, w: int, scale: float, extra: int = 0
) -> tuple[tuple, tuple]:
    """(texts, codes) of cells c0..c1-1 of row r: each text right-aligned in ``w`` characters, the
    number formatted in ``w - extra`` (a wide screen's extra columns space the cells, they do not
    turn "-1e9" into "-1000000000"),
    each code a bucket of the colour scale (``scale`` = max |finite value| of the matrix) or
    one of NAN, BLOCKED, MASKED, OPEN, PLAIN."""
    if c1 <= c0:
        return (), ()
    row = np.asarray(values[r, c0:c1], dtype=np.float64).reshape(-1)
    blk = None if blocked is None else np.asarray(blocked[r, c0:c1], dtype=bool).reshape(-1)
    finite = np.isfinite(row)
    if kind in ("seq", "div"):
        codes = palette.buckets(row, kind, scale)
        if blk is not None:
            codes[blk] = BLOCKED
    elif kind == "mask":
        codes = np.where(finite, OPEN, NAN)
        if blk is not None:
            codes[blk] = MASKED
    else:
        codes = np.where(finite, PLAIN, NAN)
        if blk is not None:
            codes[blk] = BLOCKED
    texts = []
    for c, x in enumerate(row.tolist()):
        if blk is not None and blk[c] and kind == "seq" and x == 0:
            t = "0"  # a masked weight is exactly 0: "0", unlike a rounded "0.000" of an open cell
        elif blk is not None and blk[c] and kind == "plain":
            t = NO_CEILING  # a cell with no value (a row that sees no key)
        else:
            t = fit_number(x, w - extra)
        texts.append(t.rjust(w))
    return tuple(texts), tuple(codes.tolist())


def code_style(look: palette.Look, kind: str, code: int) -> Style:
    if code >= 0:
        return look.seq[code] if kind == "seq" else look.div[code] if kind == "div" else look.plain
    return {
        NAN: look.nan,
        BLOCKED: look.blocked,
        MASKED: look.masked,
        OPEN: look.open,
        PLAIN: look.plain,
    }[code]


def row_segments(look: palette.Look, kind: str, texts, codes, selected: bool, cursor: int) -> list[Segment]:
    """A gap and a cell per column; ``cursor``: the index of the cursor's cell, or -1."""
    gap = Segment(" ", look.gap)
    segs = []
    for i, (text, code) in enumerate(zip(texts, codes)):
        style = code_style(look, kind, code)
        if selected:
            style = style + look.selected_row
        if i == cursor:
            style = look.cursor
        segs += [gap, Segment(text, style)]
    return segs


def changed_runs(old: tuple, new: tuple) -> list[tuple[int, int]]:
    """[(i0, i1)]: runs of indices where two (texts, codes) rows of the same window differ."""
    (t0, k0), (t1, k1) = old, new
    runs: list[list[int]] = []
    for i in range(len(t1)):
        if t0[i] != t1[i] or k0[i] != k1[i]:
            if runs and runs[-1][1] == i:
                runs[-1][1] = i + 1
            else:
                runs.append([i, i + 1])
    return [(a, b) for a, b in runs]

"""How the heads screen draws each head's A in its tile: the tiles' arrangement for the screen's
size, and the labels on the pictures' axes. Pure: sizes and T in, a Layout and label text out.

A picture draws one cell per (query, key) wherever that shows every head at once:

* in colour, two query rows a character line with half blocks (▀ in the upper row's colour on
  the lower row's as background) and one key a column, so a cell is about square: the 4 heads of
  induction-demo at T = 20 are whole at 120×40;
* without colour (NO_COLOR) one query row a line in shade glyphs (░ ▒ ▓ █), two characters a key:
  a glyph cannot hold two weights.

Only when T does not fit are positions pooled, k whole tokens a cell (core.heads.layer_view.edges),
and the tile's title says how many. The axes are labelled by position as the lesson writes them
(t1, t6, …): a label every few keys along the top, every line or two down the side.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

READ_W = 10  # "first 0.00": the readings column
MIN_N = 4  # the smallest picture worth drawing (then the tiles scroll)
LABELLED = 8  # the fewest cells a side worth a column of row labels beside them
SCROLLBAR = 2  # columns Textual's vertical scrollbar takes when the tiles scroll
# (two query rows a line, characters a key): square cells first, then the others
COLOUR_MODES = ((True, 1), (False, 2), (True, 2), (False, 1))
MONO_MODES = ((False, 2), (False, 1))


@dataclass(frozen=True)
class Layout:
    per_row: int  # tiles on a line
    tile_w: int
    tile_h: int
    n: int  # bins of core.heads.layer_view: at most this many cells a side (k = ⌈T/n⌉ tokens a cell)
    cw: int  # characters per key
    half: bool = False  # two query rows a character line (half blocks), else one
    lab_w: int = 0  # the row labels' column ("t20 "), 0: none
    pic_w: int = 0  # the picture's width in characters (n_c · cw)

    @property
    def rows_per_line(self) -> int:
        return 2 if self.half else 1


def _cells(T: int, n: int) -> int:
    """How many cells edges(T, n) makes: ⌈T/k⌉ for k = ⌈T/n⌉."""
    return math.ceil(T / math.ceil(T / max(n, 1)))


def _candidate(T, T_k, tile_w, lines, half, cw, labelled: bool = True):
    """(tokens a cell, cells, Layout fields but per_row and tile_h, picture lines) of one
    arrangement, or None when a picture of MIN_N keys does not fit its width. ``labelled``: a
    column of row labels ("t20 ") beside the picture."""
    lab_w = len(f"t{T}") + 1 if labelled else 0
    cap_r, cap_c = lines * (2 if half else 1), (tile_w - 4 - READ_W - lab_w) // cw
    if min(cap_r, cap_c) < MIN_N:
        return None
    # one bin count for both axes (layer_view.edges): an axis longer than its room is cut to it
    most = max(T, T_k)
    n = min(cap_r if T > cap_r else most, cap_c if T_k > cap_c else most)
    k = max(math.ceil(T / n), math.ceil(T_k / n))
    n_r, n_c = _cells(T, n), _cells(T_k, n)
    return k, (n_r, n_c), (tile_w, n, cw, half, lab_w, n_c * cw), math.ceil(n_r / (2 if half else 1))


def layout(n_heads: int, T: int, T_k: int, width: int, height: int, colour: bool = True, read_lines: int = 7) -> Layout:
    """The tiles' arrangement for ``width`` x ``height``: every head at once if any arrangement
    shows them all, then one token a cell (A whole) wherever that fits, row labels (unless they
    leave fewer than LABELLED cells a side), the fewest tokens a cell, square cells, the most cells,
    the fewest lines of tiles. Tiles are at least as tall as the readings (``read_lines``)
    beside the picture; when even that does not fit, they scroll. ``colour``: half blocks may be
    used (not under NO_COLOR)."""
    best = None
    for per_row in range(1, max(1, n_heads) + 1):
        rows = math.ceil(n_heads / per_row)
        lines = max(height // rows - 3, read_lines - 1)  # less the borders and the key axis' line
        for (half, cw), labelled in itertools.product(COLOUR_MODES if colour else MONO_MODES, (True, False)):
            got = _candidate(T, T_k, width // per_row, lines, half, cw, labelled)
            fits = got is not None and rows * (max(got[3] + 1, read_lines) + 2) <= height
            if got is not None and not fits:  # they scroll: the scrollbar takes its columns
                got = _candidate(T, T_k, (width - SCROLLBAR) // per_row, lines, half, cw, labelled)
            if got is None:
                continue
            k, (n_r, n_c), fields, pic_lines = got
            tile_h = max(pic_lines + 1, read_lines) + 2
            square = (half and cw == 1) or (not half and cw == 2)
            # row labels unless they cost a whole picture or leave fewer than LABELLED cells a side
            labels = labelled and min(n_r, n_c) >= LABELLED
            score = (fits, k == 1, labels, -k, labelled, square, n_r * n_c, -rows)
            if best is None or score > best[0]:
                best = (score, Layout(per_row, fields[0], tile_h, *fields[1:]))
    if best is not None:
        return best[1]
    lab_w = len(f"t{T}") + 1  # narrower than any picture: one tile a line, MIN_N keys, scrolled
    k = math.ceil(max(T, T_k) / MIN_N)
    n = max(math.ceil(T / k), math.ceil(T_k / k))
    pic_w = _cells(T_k, n)
    return Layout(
        1, max(width, pic_w + 4 + READ_W + lab_w), max(_cells(T, n) + 1, read_lines) + 2, n, 1, False, lab_w, pic_w
    )


def axes(lay: Layout, row_edges, col_edges) -> tuple[str, tuple[str, ...]]:
    """(the key axis' line: lab_w blanks then "t1   t6   t11 …" over the picture, one label every
    few keys where it fits; each picture line's row label, "t1 ", "t3 ", … right-aligned in lab_w,
    the first query of the line, every line in half blocks and every other line else). Positions
    count from 1, as the lesson's t1..tT; a pooled cell is named by its first token."""
    n_c, n_r = len(col_edges) - 1, len(row_edges) - 1
    widest = len(f"t{int(col_edges[-1])}") + 1
    step = max(1, math.ceil(widest / lay.cw))
    top = [" "] * (lay.lab_w + lay.pic_w)
    for c in range(0, n_c, step):
        text, x = f"t{int(col_edges[c]) + 1}", lay.lab_w + c * lay.cw
        if x + len(text) <= len(top):
            top[x : x + len(text)] = text
    every = 1 if lay.half else 2
    rows = []
    for line in range(math.ceil(n_r / lay.rows_per_line)):
        a = line * lay.rows_per_line
        label = f"t{int(row_edges[a]) + 1}" if line % every == 0 else ""
        rows.append(label.rjust(lay.lab_w - 1) + " " if lay.lab_w else "")
    return "".join(top), tuple(rows)

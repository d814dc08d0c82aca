"""The heads screen's arrangement (views/heads_layout.py), pure: every tile fits the width, the
pictures and readings fit their tile, A is whole (one token a cell) wherever a whole picture fits
with every head on screen, and the axes' labels stand over the positions they name."""

from __future__ import annotations

import math
import re

from hypothesis import given
from hypothesis import strategies as st

from attn_tui.core.heads.layer_view import edges
from attn_tui.tui.views.heads_layout import MIN_N, READ_W, SCROLLBAR, axes, layout

READ_LINES = 7


def _k(T: int, lay) -> int:
    return math.ceil(T / lay.n)


def test_induction_demo_at_120x40_is_whole_in_half_blocks():
    """The tiles' widget at 120x40 is 120 x 33; 4 heads and the rollout tile at T = 20."""
    lay = layout(5, 20, 20, 120, 33, True, READ_LINES)
    assert lay.half and lay.cw == 1 and _k(20, lay) == 1
    assert math.ceil(5 / lay.per_row) * lay.tile_h <= 33 and lay.per_row * lay.tile_w <= 120
    mono = layout(5, 20, 20, 120, 33, False, READ_LINES)
    assert not mono.half and _k(20, mono) == 2  # one row a line: 20 rows do not fit 13 lines


@given(
    st.integers(1, 16),
    st.integers(1, 5000),
    st.integers(1, 5000),
    st.integers(20, 250),
    st.integers(8, 80),
    st.booleans(),
)
def test_every_arrangement_fits_its_screen(n_heads, T, T_k, width, height, colour):
    lay = layout(n_heads, T, T_k, width, height, colour, READ_LINES)
    k_r, k_c = math.ceil(T / lay.n), math.ceil(T_k / lay.n)
    n_r, n_c = len(edges(T, lay.n)) - 1, len(edges(T_k, lay.n)) - 1
    assert lay.pic_w == n_c * lay.cw and n_r == math.ceil(T / k_r) and n_c == math.ceil(T_k / k_c)
    assert lay.lab_w + lay.pic_w + READ_W + 4 <= lay.tile_w, "picture, labels and readings inside the tile"
    assert lay.tile_h >= math.ceil(n_r / lay.rows_per_line) + 3 and lay.tile_h >= READ_LINES + 2
    assert colour or not lay.half, "no half blocks without colour"
    rows = math.ceil(n_heads / lay.per_row)
    fits = rows * lay.tile_h <= height
    room = width if fits else width - SCROLLBAR
    assert lay.per_row * lay.tile_w <= max(room, lay.tile_w), "no tile off the right edge"
    if lay.n < max(T, T_k):  # pooled: no arrangement with every head on screen draws A whole
        assert k_r > 1 or k_c > 1
        for per_row in range(1, n_heads + 1):
            lines = height // math.ceil(n_heads / per_row) - 3
            tile_w = width // per_row
            whole_fits = (
                lines + 1 >= READ_LINES
                and T <= lines * (2 if colour else 1)
                and T_k * (1 if colour else 1) <= tile_w - 4 - READ_W
            )
            assert not (whole_fits and MIN_N <= tile_w - 4 - READ_W), (per_row, lay)


@given(st.integers(1, 3000), st.integers(30, 120), st.booleans())
def test_the_axes_name_the_positions_under_them(T, width, colour):
    lay = layout(4, T, T, width, 40, colour, READ_LINES)
    re_, ce = edges(T, lay.n), edges(T, lay.n)
    top, side = axes(lay, re_, ce)
    assert len(top) == lay.lab_w + lay.pic_w
    for m in re.finditer(r"t(\d+)", top):
        c, rest = divmod(m.start() - lay.lab_w, lay.cw)
        assert rest == 0 and int(ce[c]) + 1 == int(m.group(1))  # a pooled cell: its first token
    assert len(side) == math.ceil((len(re_) - 1) / lay.rows_per_line)
    for line, label in enumerate(side):
        assert len(label) == lay.lab_w
        if label.strip():
            assert int(label.strip()[1:]) == int(re_[line * lay.rows_per_line]) + 1

"""Number formatting and colour buckets of the grids, and their colours from the theme (component classes)."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import numpy as np
import pytest

from attn_tui.core.finite import finite_range
from attn_tui.core.numfmt import fit_number
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.key_bar import KeyBar
from attn_tui.tui.widgets.matrix_grid import MatrixGrid
from attn_tui.tui.widgets.palette import DIV_BUCKETS, SEQ_BUCKETS, buckets, width_for


@pytest.mark.parametrize(
    "x, width, want",
    [
        (0.8698, 5, "0.870"),
        (-0.5, 6, "-0.500"),
        (-0.5, 5, "-.500"),
        (3.0, 5, "3.000"),
        (-1e9, 6, "-1e9"),
        (-65504.0, 6, "-65504"),
        (float("nan"), 5, "NaN"),
        (float("-inf"), 5, "-inf"),
        (-1e-9, 5, "-1e-9"),
        (1.23e-5, 6, "1.2e-5"),
        (123456789.0, 6, "1.23e8"),
        (-1.7976931348623157e308, 5, "-big"),
    ],
)
def test_fmt(x, width, want):
    assert fit_number(x, width) == want
    assert len(fit_number(x, width)) <= width


@pytest.mark.parametrize("x", [1e-300, -3.14159, 42.0, 1e6, -1e12, 7e300])
def test_fmt_never_lies_about_magnitude(x):
    s = fit_number(x, 6)
    if s not in ("big", "-big"):
        assert math.isclose(float(s), x, rel_tol=0.05, abs_tol=5e-4)


def test_cell_width():
    assert width_for(*finite_range(np.array([[0.0, 0.87, 9.99]]))) == 5
    assert width_for(*finite_range(np.array([[0.0, -0.5]]))) == 6
    assert width_for(*finite_range(np.array([[np.nan, np.inf]]))) == 5


@pytest.mark.parametrize(
    "lo, hi, by_value, by_sign",
    [(0.0, 9.99, 5, 5), (0.0, 10.36, 6, 5), (2.0, 9e99, 6, 5), (0.0, 2e100, 9, 9)]
    + [(-0.5, 3.0, 6, 6), (-2e100, 1.0, 9, 9)],
)
def test_width_by_sign_ignores_the_size_of_values_that_are_not_negative(lo, hi, by_value, by_sign):
    """S's cells (by_sign): c scales S, so its width follows the sign only, below the 1e100 of e308 fills."""
    assert (width_for(lo, hi), width_for(lo, hi, by_sign=True)) == (by_value, by_sign)


def test_buckets():
    a = np.array([[0.0, 0.5, 1.0, np.nan]])
    assert buckets(a, "seq").tolist() == [[0, SEQ_BUCKETS // 2, SEQ_BUCKETS - 1, -1]]
    s = np.array([[-2.0, 0.0, 2.0, -np.inf]])
    assert buckets(s, "div").tolist() == [[0, DIV_BUCKETS // 2, DIV_BUCKETS - 1, -1]]
    assert buckets(np.zeros((2, 2)), "div").tolist() == [[DIV_BUCKETS // 2] * 2] * 2


# -- colours from the theme: the grids, charts and key bar read their component classes ------


def _cell_style(grid, row: int, col: int, dx: int = 0):
    """The Style of cell (row, col) as the grid draws it (dx=-1: of the gap before it)."""
    r = grid.cell_region(row, col)
    line = grid.render_line(r.y - grid.content_region.y)
    x, styles = r.x - grid.content_region.x, []
    for seg in line:
        styles += [seg.style] * len(seg.text)
    return styles[x + dx]


async def test_a_theme_restyles_the_grids_and_the_key_bar(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#grid-S", MatrixGrid)
        keybar = app.screen.query_one("#keybar", KeyBar)
        label, gap, blocked = (
            next(iter(grid.render_line(0))).style,
            _cell_style(grid, 2, 1, -1),
            _cell_style(grid, 0, 1),
        )
        key = next(iter(keybar.render_line(0))).style
        assert label.bgcolor.name == gap.bgcolor.name == "#121212" and blocked.strike  # textual-dark
        app.theme = "textual-light"
        await settle(pilot)
        light_label, light_blocked = next(iter(grid.render_line(0))).style, _cell_style(grid, 0, 1)
        assert light_label.bgcolor.name == "#e0e0e0" and light_label.color != label.color
        assert light_blocked.bgcolor != blocked.bgcolor and light_blocked.strike
        assert next(iter(keybar.render_line(0))).style.color != key.color


class Restyled(AttentionApp):
    CSS_PATH = Path(inspect.getfile(AttentionApp)).with_name(AttentionApp.CSS_PATH)  # relative to app.py
    CSS = "MatrixGrid > .matrix-grid--blocked { background: #ff0000; color: #ffffff; }"


async def test_css_restyles_a_component_class_and_styles_are_read_once(settle, monkeypatch):
    reads = []
    read = MatrixGrid.get_component_rich_style
    monkeypatch.setattr(
        MatrixGrid, "get_component_rich_style", lambda self, *a, **k: reads.append(a) or read(self, *a, **k)
    )
    app = Restyled()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#grid-S", MatrixGrid)
        style = _cell_style(grid, 0, 1)  # a masked cell
        assert style.bgcolor.name == "#ff0000" and style.color.name == "#ffffff" and style.strike
        assert _cell_style(grid, 1, 0).bgcolor.name != "#ff0000"  # an open cell
        reads.clear()
        for key in "jjkk+-":
            await pilot.press(key)
        await settle(pilot)
        assert reads == []  # redraws reuse the styles read once, not one look-up per cell

"""A screen wider than the design size gives the grids its spare columns: at 200×60 the lesson's
grids stayed 108-120 columns wide with 80 empty (issue 31). Every cell widens by the spare columns
of the fullest row (up to 3), only when every row stays one line, so nothing shrinks or wraps."""

from __future__ import annotations

import pytest

from attn_tui.core.random_scenario import random_scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pipeline_layout import MARGIN, MAX_EXTRA_CELL, extra_cell, row_extras


def test_extra_cell_is_what_the_fullest_row_leaves():
    assert extra_cell([[(40, 6), (30, 4)], [(20, 2)]], 100) == min(MAX_EXTRA_CELL, (100 - 72) // 10)
    assert extra_cell([[(110, 6)]], 100) == 0  # a row that does not fit: no wider cells


def used(app) -> int:
    return max(g.region.right for g in app.screen.grids.values() if g.display)


@pytest.mark.parametrize("size", [(200, 60), (155, 45)])
async def test_the_lesson_uses_a_wide_screen(size, settle):
    app = AttentionApp()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        grids = app.screen.grids
        shown = {n: g for n, g in grids.items() if g.display}
        assert all(g.extra_cell > 0 for g in shown.values()), {n: g.extra_cell for n, g in shown.items()}
        assert set(app.screen.row_modes.values()) == {"line"}
        assert used(app) >= size[0] - 60, used(app)  # it stopped at ~120 of 200
        assert all(g.size.width >= g.virtual_size.width for g in grids.values() if g.display)  # none scrolls


async def test_the_design_size_and_a_full_row_keep_their_cells(settle):
    """At 120x40 no cell widens; at 200x60 a T = 16 scenario's rows that already scroll (S | M) keep
    their cells, and a row that widens (each row its own width, issue 51) still shows its grids whole."""
    async with AttentionApp().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert all(g.extra_cell == 0 for g in pilot.app.screen.grids.values())
    full = AttentionApp(scenario=random_scenario(T=16, d_model=16))
    async with full.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        grids = {n: g for n, g in full.screen.grids.items() if g.display}
        assert grids["S"].extra_cell == grids["M"].extra_cell == 0
        assert all(g.size.width >= g.virtual_size.width for g in grids.values() if g.extra_cell)


async def test_a_large_screen_grows_the_chart_and_the_inspector(settle):
    """What the dropped 200x60 snapshot showed beside the grids: the chart and the inspector take more room."""
    sizes = []
    for size in ((120, 40), (200, 60)):
        app = AttentionApp()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            sizes.append({pane: app.screen.query_one(pane).size for pane in ("#chart", "#inspector")})
    small, large = sizes
    for pane in small:
        assert large[pane].width > small[pane].width and large[pane].height > small[pane].height, (pane, sizes)


async def test_a_200_by_60_screen_leaves_no_empty_band(settle):
    """Issue 42 item 9: at 200×60 the pipeline left about 50 columns and 10 rows empty (cells widened
    by at most 3, bars at most 3 lines thick). Now the grids reach the right edge, the chart's bars fill
    its height, and a wider cell still prints the lesson's "-1e9", not "-1000000000"."""
    from attn_tui.tui.widgets.bar_plot import BarPlot

    app = AttentionApp()
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert used(app) >= 200 - 20, used(app)  # was 150: about 50 left
        plots = list(app.screen.query_one("#chart").query(BarPlot))
        assert plots
        for plot in plots:
            drawn = plot.bars * plot.bar_lines + 2  # title and axis besides the bars
            assert plot.size.height - drawn < plot.bars, (plot.size.height, plot.bars, plot.bar_lines)
        assert app.screen.grids["M"].cell_text(0, 1) == "-1e9"


def test_row_extras_fill_a_row_to_whole_columns():
    """One row's panes (natural width, columns): the common extra, then one more for the last panes
    whose columns still fit; the row never passes ``avail`` and ends less than its narrowest pane's
    columns short of it (unless every cell is at MAX_EXTRA_CELL)."""
    row = [(60, 6), (40, 4), (40, 4)]
    for avail in range(150, 320):
        extras = row_extras(row, avail)
        end = sum(w + MARGIN + e * c for (w, c), e in zip(row, extras))
        assert end <= avail and all(0 <= e <= MAX_EXTRA_CELL for e in extras)
        if 0 < min(extras) < MAX_EXTRA_CELL:  # no pane left at the lower width could take one more column a cell
            assert all(c > avail - end for (_w, c), e in zip(row, extras) if e == min(extras)), (avail, extras)
            assert max(extras) - min(extras) <= 1
    assert row_extras([(110, 6)], 100) == [0]


@pytest.mark.parametrize("which", ["lesson", "induction-demo"])
async def test_every_row_reaches_the_right_edge_at_200_by_60(which, settle):
    """Issue 51: one cell width for every row (the fullest row's) left the lesson's first row X | W_Q | W_K
    at column 178 of 200. Each row now ends within a cell's widening of the edge."""
    from attn_tui.tui.heads_nav import open_ref

    if which == "lesson":
        app = AttentionApp()
    else:
        s, ref = open_ref(which)
        app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        shown = [g for g in app.screen.grids.values() if g.display and g.region.width]
        rows = {}
        for g in shown:
            rows.setdefault(g.region.y, []).append(g)
        avail = 200 - app.screen.sizes.scrollbar  # what the layout fits the rows in
        for y, grids in rows.items():
            end = max(g.region.right for g in grids) + MARGIN
            widest = max(g.values.shape[1] for g in grids)
            # within a cell's widening of every grid (twice the widest's columns: a pane whose title is wider
            # than its cells, W_V's, does not grow with its first extra columns); the old first row left 20
            assert avail - 2 * widest < end <= avail, (which, y, end, avail, [g.id for g in grids])

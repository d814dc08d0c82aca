"""A screen wider than the design size gives the grids its spare columns: at 200×60 the lesson's
grids stayed 108-120 columns wide with 80 empty (issue 31). Every cell widens by the spare columns
of the fullest row (up to 3), only when every row stays one line, so nothing shrinks or wraps."""

from __future__ import annotations

import pytest

from attn_tui.core.random_scenario import random_scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pipeline_layout import MAX_EXTRA_CELL, extra_cell


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
        assert all(g.extra_cell > 0 for g in grids.values()), {n: g.extra_cell for n, g in grids.items()}
        assert set(app.screen.row_modes.values()) == {"line"}
        assert used(app) >= size[0] - 60, used(app)  # it stopped at ~120 of 200
        assert all(g.size.width >= g.virtual_size.width for g in grids.values() if g.display)  # none scrolls


async def test_the_design_size_and_a_full_scenario_keep_their_cells(settle):
    full = AttentionApp(scenario=random_scenario(T=16, d_model=16))
    for app, size in ((AttentionApp(), (120, 40)), (full, (200, 60))):
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert all(g.extra_cell == 0 for g in app.screen.grids.values())


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

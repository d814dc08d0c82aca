"""The benchmark's CPU floor paints what it claims: REPAINTED grids of ``rows`` rows each."""

from __future__ import annotations

import pytest

from attn_tui import bench
from attn_tui.tui.app import AttentionApp


@pytest.mark.parametrize("rows", [5, bench.T64_ROWS])
async def test_bare_grids_are_as_tall_as_their_rows_and_plus_paints_every_line(rows, monkeypatch):
    """A grid cell of the bare app was once 2 lines tall (one row of numbers): the floor then
    painted 8 lines per `+`, not 8 grids' worth."""
    painted: list[int] = []
    draw = bench.FloorLines.render_line
    monkeypatch.setattr(bench.FloorLines, "render_line", lambda self, y: painted.append(y) or draw(self, y))
    app = bench.bare_repaint_app(rows)()
    async with app.run_test(size=bench.SIZE) as pilot:
        await pilot.pause()
        grids = list(app.query(bench.FloorLines))
        assert [g.region.height for g in grids] == [rows + 2] * bench.REPAINTED  # title rule, header, rows
        painted.clear()
        await pilot.press("plus")
        await pilot.pause()
    assert len(painted) == bench.REPAINTED * (rows + 1)  # header and rows of every grid


async def test_the_floors_with_the_explorers_widget_count_and_style_sheet():
    n = await bench.cpu._widget_count(AttentionApp)
    for app in (bench.bare_repaint_app(5, n), bench.cpu.with_style_sheet(bench.bare_repaint_app(5, n, grids=12))):
        assert await bench.cpu._widget_count(app) == n
    styled = bench.cpu.with_style_sheet(bench.bare_repaint_app(5, n, grids=12))()
    async with styled.run_test(size=bench.SIZE) as pilot:
        await pilot.pause()
        assert len(styled.query(bench.FloorLines)) == 12
        assert any(str(path).endswith("app.tcss") for path, _ in styled.stylesheet.source)  # parsed and applied

"""What a keypress repaints (issue 12): a key that changes nothing repaints nothing, `+` does not
relayout, a grid repaints only the cells that changed, a chart whose bars did not change is not
rebuilt. Counted on the widgets' refresh calls, not timed."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widget import Widget

from attn_tui.tui.widgets.bar_plot import BarPlot
from attn_tui.tui.widgets.matrix_grid import MatrixGrid
from attn_tui.tui.widgets.softmax_chart import SoftmaxChart


@pytest.fixture
def refreshes(monkeypatch):
    """A list of (widget, regions, layout) for every Widget.refresh call from now on."""
    calls: list = []
    original = Widget.refresh

    def spy(self, *regions, **kw):
        calls.append((self, regions, kw.get("layout", False)))
        return original(self, *regions, **kw)

    monkeypatch.setattr(Widget, "refresh", spy)
    return calls


async def test_a_key_that_changes_nothing_repaints_nothing(make_app, settle, refreshes):
    app = make_app(row=5)  # the last row of the lesson: `j` has nowhere to go
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("j")  # the session's first key dismisses the "new here?" hint
        await settle(pilot)
        state = app.state
        refreshes.clear()
        await pilot.press("j")
        await settle(pilot)
        assert app.state is state
        assert refreshes == []


@pytest.mark.slow
async def test_plus_does_not_relayout(make_app, settle, refreshes):
    app = make_app(row=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus")
        await settle(pilot)
        refreshes.clear()
        c = app.state.scenario.c
        await pilot.press("plus", "plus")
        await settle(pilot)
        assert app.state.scenario.c > c
        assert [(type(w).__name__, layout) for w, _, layout in refreshes if layout] == []
        grids = {w for w, regions, _ in refreshes if isinstance(w, MatrixGrid)}
        assert {g.matrix for g in grids} == {"S", "A", "O", "H"}  # the inputs, Q, K, V and M: untouched
        assert all(regions for w, regions, _ in refreshes if isinstance(w, MatrixGrid))  # never the whole grid
        # The chart's new title repaints its border line, the plots their changed lines: never the whole chart.
        chart = [(w, regions) for w, regions, _ in refreshes if isinstance(w, SoftmaxChart | BarPlot)]
        assert chart and all(regions for _, regions in chart)
        assert any(isinstance(w, SoftmaxChart) and regions[0].y < 0 for w, regions in chart)  # the border's line


async def test_plus_repaints_only_the_cells_that_changed(make_app, settle, refreshes, grid_text):
    """Row t1 of A is (1, 0, 0, 0, 0) at any c, and the ceiling column log₂t of the entropy table
    does not depend on c: neither is repainted."""
    app = make_app(row=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus")
        await settle(pilot)
        A, H = (app.screen.query_one(f"#grid-{n}", MatrixGrid) for n in "AH")
        before = grid_text(app, "A"), grid_text(app, "H")
        refreshes.clear()
        await pilot.press("plus")
        await settle(pilot)
        after = grid_text(app, "A"), grid_text(app, "H")
        assert before[0].splitlines()[1] == after[0].splitlines()[1]  # A's row t1: the same text
        regions = {n: [r for w, rs, _ in refreshes if w is g for r in rs] for n, g in (("A", A), ("H", H))}
        assert regions["A"] and not any(r.overlaps(Region(0, 1, A.size.width, 1)) for r in regions["A"])
        ceiling = Region(H._lw, 1, H._w + 1, H.size.height - 1)  # the gap and the cell of column 0
        assert regions["H"] and not any(r.overlaps(ceiling) for r in regions["H"])
        assert before[1] != after[1]


async def test_a_chart_whose_bars_did_not_change_is_not_rebuilt(make_app, settle, monkeypatch):
    """The cell cursor moving along the selected row changes the inspector, not the charts."""
    builds = []
    original = BarPlot._build
    monkeypatch.setattr(BarPlot, "_build", lambda self: builds.append(self.id) or original(self))
    app = make_app(row=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("tab")  # focus a grid
        await settle(pilot)
        row = app.state.row
        builds.clear()
        await pilot.press("right")
        await settle(pilot)
        assert app.state.row == row and app.state.cursor is not None
        assert builds == []
        await pilot.press("plus")
        await settle(pilot)
        assert sorted(builds) == ["chart-probs", "chart-scores"]  # `+` changes both, each built once


async def test_start_up_fits_the_panes_once(make_app, settle, monkeypatch):
    """The first fit already knows the explanation line's height: no second fit (a relayout and a
    second full paint of the screen) when the first resize arrives."""
    from attn_tui.tui.screens.pipeline import PipelineScreen

    fits = []
    original = PipelineScreen._apply_plan
    monkeypatch.setattr(
        PipelineScreen, "_apply_plan", lambda self, shown, *a: fits.append(tuple(shown)) or original(self, shown, *a)
    )
    app = make_app(row=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = list(app.screen.row_modes)
    assert rows and len(fits) == len(rows) and len(set(fits)) == len(fits)  # each shown row of panes fitted once


async def test_s_passing_10_keeps_its_cells_and_the_layout(make_app, settle, refreshes, grid_text):
    """c scales S without changing its sign: S's cells keep their width when a score passes 10
    ("10.36", one decimal fewer), so the `+` that crosses it does not lay the screen out again
    (before, S widened, its row no longer fit, and every grid lost lines to scrollbars)."""
    app = make_app(row=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#grid-S")
        width, size = grid._w, grid.outer_size
        while app.state.trace.S.max() * 1.1 < 10:
            await pilot.press("plus")
        await settle(pilot)
        refreshes.clear()
        await pilot.press("plus")
        await settle(pilot)
        top = app.state.trace.S.max()
        assert 10 <= top < 100
        assert [(type(w).__name__, layout) for w, _, layout in refreshes if layout] == []
        assert (grid._w, grid.outer_size) == (width, size) == (5, size)
        assert f"{top:.2f}" in grid_text(app, "S")  # in 5 characters: two decimals

"""`+` hands nothing to a grid whose view c does not change, and a grid repaints its changed lines in
one refresh call (issue 12). Counted on calls, not timed."""

from __future__ import annotations

import numpy as np
import pytest
from textual.widget import Widget

from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.tui.state import State
from attn_tui.tui.views.grids import C_FREE, grid_view, unchanged_views
from attn_tui.tui.widgets.matrix_grid import MatrixGrid


@pytest.fixture
def shows(monkeypatch):
    """The names of the grids whose show was called, in order, from now on."""
    names: list[str] = []
    original = MatrixGrid.show

    def spy(self, *a, **kw):
        names.append(self.matrix)
        return original(self, *a, **kw)

    monkeypatch.setattr(MatrixGrid, "show", spy)
    return names


async def test_plus_shows_only_the_grids_c_changes(make_app, settle, shows):
    app = make_app(row=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus")
        await settle(pilot)
        shows.clear()
        await pilot.press("plus", "minus", "0")
        await settle(pilot)
        assert shows and set(shows) == {"S", "A", "O", "H"}
        for name in C_FREE & set(app.screen.grids):  # what they show is what the state's views say
            view, grid = grid_view(name, app.state), app.screen.grids[name]
            if view is not None:
                assert np.array_equal(grid.values, view.values) and grid.border_title in (view.title, view.short)
        shows.clear()
        await pilot.press("j")  # another knob than c: every grid is handed its view again
        await settle(pilot)
        assert set(shows) == set(app.screen.grids) - {"Y"}


async def test_a_grid_repaints_its_changed_lines_in_one_refresh(make_app, settle, monkeypatch):
    app = make_app(row=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus")
        await settle(pilot)
        calls: list = []
        original = Widget.refresh

        def spy(self, *regions, **kw):
            if isinstance(self, MatrixGrid) and any(r.y >= 1 for r in regions):  # lines of cells, not the legend
                calls.append((self.matrix, len(regions)))
            return original(self, *regions, **kw)

        monkeypatch.setattr(Widget, "refresh", spy)
        await pilot.press("plus")
        await settle(pilot)
        assert sorted(name for name, _ in calls) == ["A", "H", "O", "S"]
        assert dict(calls)["S"] > 1  # several lines of S changed: their regions in the one call


STATES = [State.opening(builtin(name)) for name in sorted(BUILTINS)]


@pytest.mark.parametrize("state", STATES, ids=sorted(BUILTINS))
def test_c_leaves_the_views_it_is_said_to_leave(state):
    """The premise of unchanged_views: no view in C_FREE reads c (values, labels, title, range)."""
    scaled = state.scale_by(3.0)
    assert unchanged_views(state, scaled) == C_FREE
    for name in C_FREE:
        a, b = grid_view(name, state), grid_view(name, scaled)
        if a is None:
            assert b is None
            continue
        assert np.array_equal(a.values, b.values, equal_nan=True)
        assert (a.blocked is None and b.blocked is None) or np.array_equal(a.blocked, b.blocked)
        assert (a.rows, a.cols, a.kind, a.title, a.short, a.selected) == (
            b.rows,
            b.cols,
            b.kind,
            b.title,
            b.short,
            b.selected,
        )
        assert np.array_equal((a.lo, a.hi), (b.lo, b.hi), equal_nan=True)


def test_any_other_change_hands_every_view_again():
    state = State.opening(builtin("lesson-pipeline"))
    assert unchanged_views(None, state) == frozenset()
    for other in (state.toggle_scaled(), state.toggle_mask(), state.select_row(1), state.toggle_pin()):
        assert unchanged_views(state, other) == frozenset()
    assert unchanged_views(state, State(state.scenario.with_(fill="-inf", c=2.0), state.row)) == frozenset()

"""Far rows are a number away: `:` or ctrl+g (go to A[t, i]) and a grid's Home, End, PageUp, PageDown move
the cell cursor, and with it the selected query row, not just the view."""

from __future__ import annotations

import pytest

from attn_tui.core.random_scenario import random_scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.editor import FormScreen

T = 300


async def type_into(pilot, text: str) -> None:
    await pilot.press("ctrl+a", "ctrl+k", *text)  # the field's old value goes first


async def test_colon_goes_to_the_cell_and_selects_its_row(settle):
    app = AttentionApp(scenario=random_scenario(T=T, mask="none"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await settle(pilot)
        assert isinstance(app.screen, FormScreen)
        await type_into(pilot, "250")
        await pilot.press("tab")
        await type_into(pilot, "123")
        await pilot.press("enter")
        await settle(pilot)
        grid = app.screen.grids["A"]
        assert app.state.row == 249 and app.state.cursor == ("A", 249, 122)
        assert grid.has_focus and grid.cursor == (249, 122)
        top = int(grid.scroll_offset.y)
        assert top <= 249 < top + grid.scrollable_content_region.height - 1  # row t250 is on screen


@pytest.mark.slow
async def test_a_row_out_of_range_is_refused_in_the_form_and_nothing_moves(settle):
    app = AttentionApp(scenario=random_scenario(T=T))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = app.state
        await pilot.press("ctrl+g")
        await settle(pilot)
        await type_into(pilot, str(T + 1))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FormScreen)
        assert app.screen.message == f"row t: {T + 1} must be a whole number from 1 to {T}"
        await type_into(pilot, "")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.message == f"row t: empty; type a whole number from 1 to {T}"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, FormScreen) and app.state is before


async def test_home_end_and_page_keys_move_the_selected_row_in_a(settle):
    app = AttentionApp(scenario=random_scenario(T=T))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.grids["A"]
        grid.focus()
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        assert app.state.row == T - 1 and grid.cursor[0] == T - 1
        page = grid.scrollable_content_region.height - 1  # rows under the header
        assert page > 1
        await pilot.press("pageup")
        await settle(pilot)
        assert app.state.row == T - 1 - page
        await pilot.press("pagedown", "pagedown")
        await settle(pilot)
        assert app.state.row == T - 1  # clamped at the last row
        await pilot.press("home")
        await settle(pilot)
        assert app.state.row == 0 and int(grid.scroll_offset.y) == 0

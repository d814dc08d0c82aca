"""Issue 34 item 2/9: the number forms take ASCII digits only. `²`, `٣²`, `5\x1c` and a 5000-digit
number in the dimensions form crashed the explorer (int() on text str.isdigit() accepted); `١`,
`１２` went through as 1 and 12. Each is now one line in the form naming the field; the scenario stays."""

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.editor import FormScreen

SIZE = (120, 40)


async def submit(app, pilot, settle, action, field, text):
    await app.run_action(f"do('{action}')")
    await settle(pilot)
    assert isinstance(app.screen, FormScreen)
    app.screen.query_one(f"#field-{field}").value = text
    await pilot.press("enter")
    await settle(pilot)
    return app.screen


@pytest.mark.parametrize("text", ["²", "٣²", "5\x1c", pytest.param("9" * 5000, id="5000-digits"), "١", "１２"])
async def test_the_dimensions_form_refuses_non_ascii_and_huge_numbers(text, settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.state.scenario
        form = await submit(app, pilot, settle, "edit.dims", "d_k", text)
        assert isinstance(form, FormScreen) and app.is_running
        assert form.message.startswith("d_k: ") and "whole number" in form.message and "\n" not in form.message
        assert app.state.scenario is before and not app.history.past


@pytest.mark.parametrize(
    "action,field,text", [("go.go_to", "t", "١"), ("settings.random", "T", "１２"), ("settings.random", "seed", "٣")]
)
async def test_go_to_and_random_forms_refuse_non_ascii_digits(action, field, text, settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.state
        form = await submit(app, pilot, settle, action, field, text)
        assert isinstance(form, FormScreen) and repr(text) in form.message and "whole number" in form.message
        assert app.state is before


async def test_the_cell_editor_refuses_arabic_indic_one(settle):
    from tests.tui.test_edit_app import open_editor

    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ed = await open_editor(app, pilot, "X", downs=1, rights=1)  # X[t2, verb] = 1
        app.screen.query_one("#editor-input").value = "٢"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is ed and "'٢' is not a number (digits 0-9 only)" in ed.message
        assert app.state.scenario.X[1, 1] == 1.0


async def test_the_window_form_refuses_a_superscript(settle):
    from attn_tui.tui.actions.settings import picked_mask

    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.state.scenario
        picked_mask(app, "window")
        await settle(pilot)
        app.screen.query_one("#field-w").value = "²"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.message.startswith("window width: '²' is not a whole number (digits 0-9 only)")
        assert app.state.scenario is before

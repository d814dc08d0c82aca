"""Pilot tests of each mode: mask kinds, padding, fill, dtype, cross-attention, random."""

import numpy as np
import pytest

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.editor import FormScreen
from attn_tui.tui.screens.pickers import ChoiceScreen, PaddingScreen
from attn_tui.tui.views.status import status_view
from attn_tui.tui.widgets.status import status_text

SIZE = (120, 40)


async def pick(app, pilot, key, value):
    """Open the picker bound to ``key`` and choose the option whose value is ``value``."""
    await pilot.press(key)
    await pilot.pause()
    scr = app.screen
    assert isinstance(scr, ChoiceScreen)
    values = [v for v, _, _ in scr.options]
    scr.query_one("#choices").highlighted = values.index(value)
    await pilot.press("enter")
    await pilot.pause()


def explain(app):
    w = app.query_one("#explain")
    return str(w.render()) if w.display else ""


async def test_mask_none_and_window():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pick(app, pilot, "w", "none")
        assert app.state.scenario.mask == "none" and app.state.trace.A[0, 1] > 0  # exercise 2
        await pick(app, pilot, "w", "window")
        assert isinstance(app.screen, FormScreen)
        app.screen.query_one("#field-w").value = "2"
        await pilot.press("enter")
        await pilot.pause()
        s, tr = app.state.scenario, app.state.trace
        assert (s.mask, s.window) == ("window", 2)
        assert tr.A[4, :3].sum() == 0 and tr.A[4, 3:].sum() == pytest.approx(1)
        assert "mask window 2" in status_text(status_view(app.state)).plain


@pytest.mark.slow
async def test_padding_with_inf_fill_gives_nan_and_explanation():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, PaddingScreen)
        await pilot.press("space", "enter")  # pad key 1
        await pilot.pause()
        assert app.state.scenario.padding == (1,)
        assert not app.state.trace.nan_rows and "finite fill" in explain(app)
        await pick(app, pilot, "f", "-inf")
        assert app.state.scenario.fill == "-inf" and app.state.trace.nan_rows == (0,)
        text = explain(app)
        assert "-inf - (-inf) = NaN" in text and "finite fill" in text
        assert app.query_one("#grid-A")._row_text(0)[0].strip() == "NaN"
        await pick(app, pilot, "f", "min")
        assert not app.state.trace.nan_rows


async def test_float16_fill_overflow_shown():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pick(app, pilot, "d", "float16")
        tr = app.state.trace
        assert app.state.scenario.dtype == "float16" and np.isneginf(tr.M[0, 1])
        assert "-1e9 fill overflows to -inf" in explain(app) and "65504" in explain(app)
        assert app.query_one("#grid-M")._row_text(0)[1].strip() == "-inf"
        await pick(app, pilot, "d", "float32")
        assert explain(app) == "" and app.state.trace.A.dtype == np.float32


@pytest.mark.slow
async def test_cross_attention_shapes_and_causal_rule():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        s = app.state.scenario
        assert s.cross and app.query_one("#grid-Y").display and "cross 5×5" in status_text(status_view(app.state)).plain
        await pilot.press("A")  # a sixth key token in Y
        await pilot.pause()
        s = app.state.scenario
        assert (s.T, s.T_k) == (5, 6) and app.query_one("#grid-A").values.shape == (5, 6)
        assert "own 6 positions" in explain(app)  # causal kept, but the app says why it is odd
        await pilot.press("w")
        await pilot.pause()
        opts = {v: ok for v, _, ok in app.screen.options}
        assert opts["causal"] is False and opts["none"] is True
        assert any("why not causal" in text for _, text, _ in app.screen.options)
        await pick_from_open(app, pilot, "none")
        assert app.state.scenario.mask == "none" and explain(app) == ""
        await pilot.press("c")
        assert not app.state.scenario.cross and app.state.trace.A.shape == (5, 5)


async def pick_from_open(app, pilot, value):
    scr = app.screen
    scr.query_one("#choices").highlighted = [v for v, _, _ in scr.options].index(value)
    await pilot.press("enter")
    await pilot.pause()


async def test_cross_refused_for_qk_scenario():
    app = AttentionApp(builtin("lesson-handcrafted"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert not app.state.scenario.cross
        assert any("needs X" in m for m in app.notes.messages())


@pytest.mark.long
@pytest.mark.slow  # a 256-token scenario through the form and the keys
async def test_random_scenario_256_usable(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        form = app.screen
        for key, val in {"T": "256", "d_model": "16", "d_k": "8", "d_v": "8", "seed": "7"}.items():
            form.query_one(f"#field-{key}").value = val
        await pilot.press("enter")
        await pilot.pause()
        s = app.state.scenario
        assert (s.T, s.d_k, s.d_v) == (256, 8, 8) and "seed=7" in s.title
        row, c = app.state.row, app.state.scenario.c
        await pilot.press("plus", "down", "down")
        await pilot.pause()
        # the keys are answered (no wall-clock bound: the repaint tests count what a key costs)
        assert app.state.scenario.c == pytest.approx(c * 1.1, rel=1e-15) and app.state.row == row + 2
        grid = app.query_one("#grid-A")
        grid.focus()
        await pilot.press(*["down"] * 40)
        await pilot.pause()
        assert grid.cursor[0] == 42 and grid.scroll_offset.y > 0  # the grid scrolls
        await pilot.press("r")
        await pilot.pause()
        app.screen.query_one("#field-T").value = "9999"
        await pilot.press("enter")
        await pilot.pause()
        assert "T: 9999 must be a whole number from 1 to 512" in app.screen.message
        await pilot.press("escape", "r")  # the form remembers the sizes and offers the next seed
        await pilot.pause()
        assert app.screen.query_one("#field-T").value == "256" and app.screen.query_one("#field-seed").value == "8"


def test_every_edit_key_has_an_action_and_a_palette_entry():
    import inspect
    from importlib import import_module

    from attn_tui.tui import keys

    mine = {
        "undo.undo",
        "undo.redo",
        "files.open",
        "files.save",
        "files.export",
        "edit.rename_token",
        "edit.rename_feature",
        "edit.rename_key",
        "edit.add_token",
        "edit.remove_token",
        "edit.add_key",
        "edit.remove_key",
        "edit.dims",
        "settings.pick_mask",
        "settings.pick_padding",
        "settings.pick_fill",
        "settings.pick_dtype",
        "settings.toggle_cross",
        "settings.random",
    }
    rows = {k.action: k for k in keys.KEYS if k.action in {f"do('{m}')" for m in mine} and k.scope == "app"}
    assert set(rows) == {f"do('{m}')" for m in mine}
    for action, k in rows.items():
        module, _, name = action[4:-2].partition(".")
        fn = getattr(import_module(f"attn_tui.tui.actions.{module}"), name)
        assert inspect.signature(fn).bind(None)  # called as fn(app)
        assert k.palette and k.scope == "app"
        assert not any(part.startswith(("f1", "ctrl+1")) for part in k.key.split(","))


@pytest.mark.slow
async def test_cross_edit_y_and_rename_key():
    app = AttentionApp(builtin("cross-attention"))
    async with app.run_test(size=SIZE) as pilot:
        grid = app.query_one("#grid-Y")
        grid.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        app.screen.query_one("#editor-input").value = "0.5"
        await pilot.press("enter")
        await pilot.pause()
        assert app.state.scenario.Y[1, 0] == 0.5 and app.state.trace.K.shape == (3, 4)
        await pilot.press("K")
        await pilot.pause()
        app.screen.query_one("#editor-input").value = "y2 rug"
        await pilot.press("enter")
        await pilot.pause()
        assert app.state.scenario.keys[1] == "y2 rug"
        assert "y2 rug" in app.query_one("#grid-A").col_labels


async def test_padding_picker_keeps_fast_typing_in_order(make_app):
    """Keys arriving in one burst (as over SSH) must not be reordered: down, space, enter."""
    from textual import events

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        for key, char in [("down", None), ("space", " "), ("enter", "\r")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert app.state.scenario.padding == (2,) and app.state.row == 0
        assert not isinstance(app.screen, PaddingScreen)

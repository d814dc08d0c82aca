"""Pilot tests: editing cells and labels, tokens, dimensions and undo/redo in the app."""

import numpy as np
import pytest

from attn_tui.tui.actions import commit
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.editor import CellEditor, FormScreen

SIZE = (120, 40)


async def open_editor(app, pilot, grid, downs=0, rights=0):
    app.query_one(f"#grid-{grid}").focus()
    await pilot.pause()
    await pilot.press(*(["down"] * downs + ["right"] * rights), "enter")
    await pilot.pause()
    assert isinstance(app.screen, CellEditor)
    return app.screen


async def replace_value(app, pilot, text):
    inp = app.screen.query_one("#editor-input")
    inp.value = ""
    await pilot.press(*list(text), "enter")
    await pilot.pause()


async def test_edit_good_value_recomputes_everything():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        ed = await open_editor(app, pilot, "W_Q", downs=3)  # W_Q[pron, d1] = 2 (the column header of W_Q and Q)
        assert ed.query_one("#editor-input").value == "2.0"
        assert "W_Q[pron, d1]" in ed.title_text and "row 4, column 1" in ed.title_text
        await replace_value(app, pilot, "0")
        assert not isinstance(app.screen, CellEditor)
        assert app.state.scenario.W_Q[3, 0] == 0.0
        # the pronoun no longer asks for a noun: row 4 becomes Lesson 07's uniform 1/4
        assert np.allclose(app.state.trace.A[3, :4], 0.25)
        grid_a = app.query_one("#grid-A")
        assert "0.250" in grid_a._row_text(3)[0]


@pytest.mark.parametrize(
    "bad,words",
    [
        ("abc", "not a number"),
        ("", "empty"),
        ("nan", "NaN"),
        ("inf", "infinite"),
        ("1e400", "infinite"),
        ("1e", "not a number"),
        ("--1", "not a number"),
        ("5e6", "too large"),
    ],
)
async def test_edit_bad_values_keep_old_value(bad, words, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        ed = await open_editor(app, pilot, "X", downs=1, rights=1)  # X[t2 was, verb] = 1
        await replace_value(app, pilot, bad)
        assert app.screen is ed  # still open, message inline
        assert words in ed.message and "X row 2, column 2" in ed.message
        assert ed.query_one("#editor-message").has_class("error")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CellEditor)
        assert app.state.scenario.X[1, 1] == 1.0
        assert not app.history.past


async def test_the_refusal_line_on_screen_names_the_cell_the_value_and_why():
    """What the editor shows when it refuses (the dropped editor_refuses snapshot's picture, as text)."""
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        ed = await open_editor(app, pilot, "W_Q", downs=3)  # W_Q[pron, d1] = 2
        await replace_value(app, pilot, "1e400")
        line = ed.query_one("#editor-message")
        want = "W_Q row 4, column 1: '1e400' is infinite (beyond float64); entries must be finite"
        assert app.screen is ed and str(line.render()) == want and line.has_class("error")
        assert ed.query_one("#editor-input").value == "1e400"  # kept to correct, not cleared
        assert app.state.scenario.W_Q[3, 0] == 2.0 and not app.history.past


async def test_scores_overflow_refused_in_float16():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        commit(app, app.state.scenario.with_(dtype="float16"))
        ed = await open_editor(app, pilot, "X")
        await replace_value(app, pilot, "30000")
        assert "overflows float16" in ed.message and "65504" in ed.message
        assert app.state.scenario.X[0, 0] == 1.0


async def test_escape_cancels():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(app, pilot, "W_K")
        await pilot.press("9", "escape")
        await pilot.pause()
        assert app.state.scenario.W_K[0, 0] == 3.0 and not app.history.past


@pytest.mark.slow
async def test_undo_redo_keys_and_knobs():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(app, pilot, "W_Q", downs=3)
        await replace_value(app, pilot, "0")
        app.query_one("#grid-A").focus()
        await pilot.press("plus")  # the explorer's knob is a change too
        assert app.state.scenario.c == pytest.approx(1.1)
        await pilot.press("ctrl+z")
        assert app.state.scenario.c == 1.0 and app.state.scenario.W_Q[3, 0] == 0
        await pilot.press("ctrl+z")
        assert app.state.scenario.W_Q[3, 0] == 2.0
        assert app.state.trace.A[3, 0] == pytest.approx(np.e**3 / (np.e**3 + 3))
        await pilot.press("ctrl+z")  # nothing left: a message, no change
        await pilot.press("ctrl+y", "ctrl+y")
        assert app.state.scenario.W_Q[3, 0] == 0 and app.state.scenario.c == pytest.approx(1.1)


async def test_undo_in_palette():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        assert not app.state.scenario.scaled
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Undo", "enter")
        await pilot.pause()
        assert app.state.scenario.scaled


@pytest.mark.slow
async def test_add_and_remove_token(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "down")  # select t3 soft
        assert app.state.row == 2
        await pilot.press("a")
        s = app.state.scenario
        assert s.T == 6 and s.tokens[3] == "t4" and s.tokens[4] == "t5 it" and not s.X[3].any() and app.state.row == 3
        assert app.query_one("#grid-A").values.shape == (6, 6)
        await pilot.press("D")
        assert app.state.scenario.T == 5 and app.state.scenario.tokens[3] == "t4 it"
        await pilot.press("ctrl+z")
        assert app.state.scenario.T == 6
        await pilot.press("ctrl+z")
        assert app.state.scenario.T == 5


async def test_rename_token_and_feature(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, CellEditor)
        await replace_value(app, pilot, "the cat")
        assert app.state.scenario.tokens[0] == "the cat"
        assert "the cat" in app.query_one("#grid-A").row_labels
        await pilot.press("N")
        await replace_value(app, pilot, "   ")
        assert "empty" in app.screen.message
        await pilot.press("escape")
        await pilot.press("ctrl+z")
        assert app.state.scenario.tokens[0] == "t1 mat"


@pytest.mark.slow
async def test_change_dimensions():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, FormScreen)
        app.screen.query_one("#field-d_k").value = "6"
        app.screen.query_one("#field-d_v").value = "2"
        await pilot.press("enter")
        await pilot.pause()
        s = app.state.scenario
        assert (s.d_model, s.d_k, s.d_v) == (6, 6, 2) and not s.W_Q[:, 4:].any()
        assert app.query_one("#grid-O").values.shape == (5, 2)
        await pilot.press("g")
        app.screen.query_one("#field-d_model").value = "0"
        await pilot.press("enter")
        await pilot.pause()
        assert "d_model" in app.screen.message and "1 to" in app.screen.message


async def test_the_dimensions_form_keeps_what_was_typed_and_names_it(settle):
    """Typing 2.5 for d_k: the field keeps "2.5" (an integer-only field dropped the point and applied
    d_k = 25 without a word) and the form refuses it by name; the scenario stays."""
    from attn_tui.tui.app import AttentionApp

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = app.state.scenario
        await app.run_action("do('edit.dims')")
        await settle(pilot)
        field = app.screen.query_one("#field-d_k")
        field.focus()
        field.value = ""
        await pilot.press("2", "full_stop", "5")
        assert field.value == "2.5"
        await pilot.press("enter")
        await settle(pilot)
        message = str(app.screen.query_one("#form-message").render())
        assert "'2.5'" in message and "d_k" in message, message
        assert app.state.scenario is before

"""Pilot tests: every key of the explorer changes the state and the numbers on screen."""

from __future__ import annotations

import numpy as np
import pytest

# The knob's step as docs/EXPLORER.md documents it ("multiply / divide the scale multiplier c by 1.1"),
# written here, not imported from the constant under test.
STEP = 1.1

SIZE = (120, 40)


async def test_opens_on_the_lesson_pipeline(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.state.scenario.tokens[3] == "t4 it"
        assert grid_cell(app, "A", 3, 0) == "0.870"  # the pronoun finds its noun
        assert app.focused is app.screen.query_one("#grid-A")
        assert "A = softmax(S + M)" in app.screen.query_one("#grid-A").border_title


async def test_u_removes_the_scale(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        await pilot.pause()
        assert app.state.scenario.scaled is False
        want = np.exp(6) / (np.exp(6) + 3)  # raw score 6 vs three zeros
        assert app.state.trace.A[3, 0] == pytest.approx(want)
        assert grid_cell(app, "A", 3, 0) == f"{want:.3f}" == "0.993"
        assert "unscaled" in app.screen.query_one("#grid-S").border_title
        await pilot.press("u")
        await pilot.pause()
        assert grid_cell(app, "A", 3, 0) == "0.870"


async def test_m_drops_the_mask(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert grid_cell(app, "A", 0, 0) == "1.000"
        await pilot.press("m")
        await pilot.pause()
        assert app.state.scenario.mask == "none"
        # token 1 (mat) has a zero query: with every key open its row is uniform 1/5.
        assert [grid_cell(app, "A", 0, i) for i in range(5)] == ["0.200"] * 5
        assert "M none" in app.screen.query_one("#grid-M").border_title


def test_the_step_is_the_documented_one():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "EXPLORER.md").read_text(encoding="utf-8")
    assert f"multiply / divide the scale multiplier c by {STEP}" in readme


async def test_plus_minus_zero_turn_the_knob(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        h0 = app.state.trace.H[3]
        status = app.screen.query_one("#status").plain
        assert "c=1.000" in status
        await pilot.press("plus")
        await pilot.pause()
        assert app.state.scenario.c == pytest.approx(STEP)
        assert app.state.trace.H[3] < h0  # a sharper row
        assert grid_cell(app, "H", 3, 1) == f"{app.state.trace.H[3]:.3f}" != f"{h0:.3f}"
        assert grid_cell(app, "A", 3, 0) != "0.870"
        assert "c=1.100" in app.screen.query_one("#status").plain
        await pilot.press("minus", "minus")
        await pilot.pause()
        assert app.state.scenario.c == pytest.approx(1 / STEP)
        assert app.state.trace.H[3] > h0  # a flatter row
        await pilot.press("0")
        await pilot.pause()
        assert app.state.scenario.c == 1.0
        assert grid_cell(app, "A", 3, 0) == "0.870"


async def test_row_selection_keys_and_cursor(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.state.row == 0
        await pilot.press("down", "down", "down")  # A has focus: the cursor drags the row
        assert app.state.row == 3
        assert app.state.cursor == ("A", 3, 0)
        for name in "SMAOH":
            assert app.screen.query_one(f"#grid-{name}").selected == 3
        await pilot.press("k")
        assert app.state.row == 2
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        assert app.state.row == 4  # clamped at the last token
        await pilot.press("right")
        assert app.state.cursor == ("A", 4, 1)
        assert "A[5,2]" in app.screen.query_one("#inspector").plain


async def test_tab_moves_between_panes(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        first = app.focused
        await pilot.press("tab")
        assert app.focused is not first
        await pilot.press("shift+tab")
        assert app.focused is first


@pytest.mark.slow
async def test_help_screen_opens_and_closes(make_app):
    from attn_tui.tui.screens.help import HelpScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_q_quits(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 or app.return_code is None
    assert not app.is_running


async def test_enter_on_an_editable_cell_posts_edit_request(make_app):
    from attn_tui.tui.widgets.matrix_grid import MatrixGrid

    app = make_app()
    seen = []
    async with app.run_test(size=SIZE, message_hook=lambda m: seen.append(m)) as pilot:
        grid = app.screen.query_one("#grid-W_Q")
        grid.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        edits = list({id(m): m for m in seen if isinstance(m, MatrixGrid.EditRequested)}.values())  # hook: per hop
        assert [(m.control.matrix, m.row, m.col) for m in edits] == [("W_Q", 1, 0)]
        assert edits[0].control is grid
        await pilot.press("escape")


async def test_masked_weights_print_an_exact_zero(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert grid_cell(app, "A", 0, 1) == "0"  # masked: exp(-1e9) = 0 exactly
        assert grid_cell(app, "A", 1, 1) == "0.047"  # open: printed with 3 decimals
        assert grid_cell(app, "M", 0, 1) == "-1e9"
        await pilot.press("m")
        await pilot.pause()
        assert grid_cell(app, "A", 0, 1) == "0.200"


async def test_inspector_follows_the_row_and_cursor(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j", "j", "j")
        await pilot.pause()
        text = app.screen.query_one("#inspector").plain
        assert "A[4,1]" in text and "0.870" in text
        app.screen.query_one("#grid-S").focus()
        await pilot.pause()
        text = app.screen.query_one("#inspector").plain
        assert "S[4,1]" in text and "q·k = 6.000" in text and "3.000" in text  # 1 × 6 / √4


async def test_key_bar_shows_the_table(make_app):
    from attn_tui.tui.keys import all_keys

    app = make_app()
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one("#keybar").plain
        for k in all_keys():
            if k.scope == "app" and k.show and k.action != "switch_mode('pipeline')":  # not the screen shown
                assert (k.bar or k.description) in bar
        assert "p Pipeline" not in bar


async def test_help_lists_every_pane_and_key():
    from attn_tui.tui.keys import all_keys
    from attn_tui.tui.screens.help import help_markdown
    from attn_tui.tui.views.grids import PANE_HELP

    md = help_markdown()
    for text in PANE_HELP.values():
        assert text in md
    for k in all_keys():
        assert k.help in md


async def test_palette_runs_an_action(make_app, settle):
    """ctrl+p, type, enter: the action runs, as from its key."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Mask")
        await settle(pilot)  # the palette's search runs in a worker
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.scenario.mask == "none"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"c×1.1")
        await settle(pilot)  # the palette's search runs in a worker
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.scenario.c == pytest.approx(STEP)


async def test_clicking_a_cell_or_a_row_label_selects_the_row(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        # offsets within the grid's region: its top border is y = 0, the column header y = 1, row t1 y = 2
        await pilot.click("#grid-S", offset=(2, 5))  # label column, row t4
        await pilot.pause()
        assert app.state.row == 3 and app.state.cursor == ("S", 3, 0)
        await pilot.click("#grid-A", offset=(9 + 6 * 2 + 2, 3))  # row t2, column t3
        await pilot.pause()
        assert app.state.row == 1 and app.state.cursor == ("A", 1, 2)


async def test_pipeline_catches_up_after_another_screen(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")  # lenses
        await pilot.pause()
        await pilot.press("u")  # a change made on another screen
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        assert app.state.scenario.scaled is False
        assert grid_cell(app, "A", 3, 0) == "0.993"
        assert "unscaled" in app.screen.query_one("#grid-S").border_title


async def test_chart_draws_the_last_state_of_a_burst(make_app, monkeypatch):
    from attn_tui.tui.widgets.softmax_chart import SoftmaxChart

    monkeypatch.setattr(SoftmaxChart, "INTERVAL", 0.1)  # the throttle as users have it
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*["plus"] * 5)
        chart = app.screen.query_one("#chart")
        while not chart.settled:  # wait on the chart's state, not a fixed time
            await pilot.pause()  # the pilot's own wait for the app to idle
        c = STEP**5
        assert f"c={c:.3f}" in app.screen.query_one("#chart").border_title

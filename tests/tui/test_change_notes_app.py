"""New-user review, group B, in the app: undo, add token, cross-attention, the box-kernel
switch, enter on computed grids, notifications, tiny numbers, the sweep export's folder
prompt, and focus in the experiments' inputs."""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.tui.actions import commit
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.experiments import ExperimentsScreen
from attn_tui.tui.screens.files import ConfirmScreen, FolderExportScreen

SIZE = (120, 40)


def notes(app):
    return app.notes.messages()


async def test_reset_when_c_is_one_is_no_undo_step():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("+", "0", "0", "0")
        assert app.state.scenario.c == 1.0
        await pilot.press("ctrl+z")
        assert app.state.scenario.c == pytest.approx(1.1)
        await pilot.press("ctrl+z")
        assert app.state.scenario.c == 1.0 and not app.history.past


async def test_added_token_is_labelled_by_its_position():
    app = AttentionApp(builtin("lesson-handcrafted"))  # opens on t4, the row the lesson reads
    async with app.run_test(size=SIZE) as pilot:
        assert app.state.row == 3
        await pilot.press("a")
        await pilot.pause()
        assert app.state.scenario.tokens == ("t1", "t2", "t3", "t4", "t5", "t6")
        assert app.state.row == 4 and any("token 5 added" in m for m in notes(app))


async def test_cross_attention_keeps_padding_and_says_so():
    app = AttentionApp(builtin("lesson-pipeline").with_(padding=(1,)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert app.state.scenario.cross and app.state.scenario.padding == (1,)
        assert any("cross-attention on" in m and "padding kept on key position 1" in m for m in notes(app))


async def test_box_kernel_switch_says_it_changed_the_scenario():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        wq = app.state.scenario.W_Q.copy()
        await pilot.press("l")
        await pilot.pause()
        await pilot.press("z")
        await pilot.pause()
        assert not app.state.scenario.W_Q.any()
        msg = [m for m in notes(app) if "W_Q = W_K = 0" in m]
        assert msg and "scenario" in msg[0] and "ctrl+z" in msg[0] and "z again" in msg[0]
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert (app.state.scenario.W_Q == wq).all()


@pytest.mark.parametrize(
    "grid, words", [("S", "S is computed"), ("M", "M is the mask"), ("A", "A = softmax"), ("O", "O = A·V")]
)
async def test_enter_on_a_computed_grid_says_what_to_edit(grid, words):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(f"#grid-{grid}").focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        # issue 42 item 2: a dialog that keeps the keys typed after it (screens/nothing_here.py), not a note
        assert app.screen.id == "nothing-here", app.screen
        line = app.screen.line
        assert words in line and "edit" in line, line


@pytest.mark.slow
async def test_a_new_change_replaces_the_last_changes_note(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        added = [n for n in app.notes.shown() if "added" in n.message]
        assert len(added) == 1 and "token 3 added" in added[0].message and added[0].timeout <= 5
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert not [m for m in notes(app) if "added" in m]  # the stale note is gone
        assert any(m.startswith("undone") for m in notes(app))


async def test_explanation_goes_when_it_no_longer_applies():
    app = AttentionApp(builtin("lesson-pipeline"))
    async with app.run_test(size=SIZE) as pilot:
        commit(app, app.state.scenario.with_(dtype="float16"))
        await pilot.pause()
        assert any("overflows to -inf" in m for m in notes(app))
        await pilot.press("ctrl+z")  # back to float64: the float16 explanation no longer applies
        await pilot.pause()
        assert not any("overflows to -inf" in m for m in notes(app))


async def test_tiny_value_shows_sign_and_magnitude_in_the_grid(grid_cell):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        before = grid_cell(app, "X", 0, 1)
        commit(app, app.state.scenario.with_(X=_with(app.state.scenario.X, 0, 0, -1.23e-5)))
        await pilot.pause()
        cell = grid_cell(app, "X", 0, 0)
        assert cell.strip() == "-1e-5" and len(cell) == len(grid_cell(app, "X", 0, 1)) == len(before)


def _with(m, r, c, x):
    a = m.copy()
    a[r, c] = x
    return a


@pytest.mark.slow
async def test_sweep_export_asks_for_a_folder_and_before_overwriting(tmp_path, monkeypatch, open_experiments):
    monkeypatch.chdir(tmp_path)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_experiments(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, FolderExportScreen)
        assert list(tmp_path.iterdir()) == []  # nothing written before the learner says where
        assert app.screen.query_one("#path").value == "softmax_sharpening"
        await pilot.press("enter")
        await pilot.pause()
        out = tmp_path / "softmax_sharpening"
        assert (out / "softmax_sharpening.svg").exists()
        assert len(list((out / "softmax_sharpening_frames").iterdir())) == 30
        assert not (tmp_path / "softmax_sharpening.svg").exists()
        (out / "softmax_sharpening.svg").write_text("mine")
        await pilot.press("e", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert (out / "softmax_sharpening.svg").read_text() == "mine"
        await pilot.press("enter")  # the prompt is still open: ask again, say yes
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert (out / "softmax_sharpening.svg").read_text().startswith("<svg")
        assert isinstance(app.screen, ExperimentsScreen)


@pytest.mark.slow
async def test_enter_in_an_experiment_input_runs_and_keeps_focus(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        await pilot.press("tab", "tab")
        n_input = screen.query_one("#in-n")
        assert app.focused is n_input
        await pilot.press("end", "backspace", "enter")  # n = 500
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert app.focused is n_input
        await pilot.press("1")  # typing goes on in the field, not to the `1`-keys
        assert n_input.value == "5001" and isinstance(app.screen, ExperimentsScreen)

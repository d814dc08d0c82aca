"""A cell edit of a scenario above 512 tokens runs in a thread worker (at T = 16384, d = 256 it took
about a second on the event loop): the editor closes at once, a note says it is computing, and the
edit lands on the scenario current when it finishes, a change made meanwhile included."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from attn_tui.cli.explorer import load
from attn_tui.core.edit import set_cell
from attn_tui.tui.actions import edit as edit_actions
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.editor import CellEditor

T, D = 600, 8


def large_file(tmp_path, dtype="float64", scale=0.3):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((T, D))
    W = {k: rng.standard_normal((D, D)) * scale for k in ("W_Q", "W_K", "W_V")}
    path = tmp_path / f"x{dtype}.npz"
    np.savez(path, X=X, **W, mask=np.array("causal"), dtype=np.array(dtype))
    return load(str(path))


async def edit_x(app, pilot, text):
    app.query_one("#grid-X").focus()
    await pilot.pause()
    await pilot.press("down", "down", "right", "enter")  # X row 3, column 2
    await pilot.pause()
    assert isinstance(app.screen, CellEditor)
    app.screen.query_one("#editor-input").value = ""
    await pilot.press(*text, "enter")
    await pilot.pause()


@pytest.mark.slow
async def test_large_edit_runs_in_a_worker(tmp_path, settle, monkeypatch):
    s = large_file(tmp_path)
    go = threading.Event()

    def held(*args):  # the edit waits in its thread until the test lets it go
        assert threading.current_thread() is not threading.main_thread()
        go.wait(30)
        return set_cell(*args)

    monkeypatch.setattr(edit_actions.edit, "set_cell", held)  # core.edit, as the action module names it
    app = AttentionApp(scenario=s)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await edit_x(app, pilot, "0.25")
        row = app.state.row
        assert not isinstance(app.screen, CellEditor)  # closed before the edit is computed
        assert any(m.startswith("computing X row 3, column 2 = 0.25 over 600 tokens") for m in app.notes.messages())
        await pilot.press("j")  # keys are answered meanwhile
        await pilot.pause()
        assert app.state.row == row + 1 and app.state.scenario is s
        go.set()
        await settle(pilot)
        new = app.state.scenario
        assert new.X[2, 1] == 0.25 and s.X[2, 1] != 0.25
        np.testing.assert_array_equal(np.delete(new.X.ravel(), 2 * D + 1), np.delete(s.X.ravel(), 2 * D + 1))
        assert not any(m.startswith("computing") for m in app.notes.messages())  # the note went with it


async def test_large_edit_bad_text_refused_in_the_editor(tmp_path, settle):
    app = AttentionApp(scenario=large_file(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await edit_x(app, pilot, "abc")
        assert isinstance(app.screen, CellEditor)  # refused at once, no worker
        assert "not a number" in str(app.screen.query_one("#editor-message").render())


@pytest.mark.slow
async def test_large_edit_overflow_refused_after_the_worker(tmp_path, settle):
    s = large_file(tmp_path, "float16", scale=1.0)
    app = AttentionApp(scenario=s)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await edit_x(app, pilot, "900000")
        await settle(pilot)
        assert app.state.scenario is s  # the old value stays
        assert any("overflows float16" in m for m in app.notes.messages())


async def test_a_change_meanwhile_gets_the_edit(tmp_path, settle):
    s = large_file(tmp_path)
    app = AttentionApp(scenario=s)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("plus")  # c changed after the edit started from s
        await settle(pilot)
        sharper = app.state.scenario
        assert sharper is not s
        stale = set_cell(s, "X", 2, 1, 0.5)
        edit_actions._edit_done(app, s, (stale, None), ("X", 2, 1, 0.5))
        await settle(pilot)
        new = app.state.scenario
        assert new.X[2, 1] == 0.5 and new.c == sharper.c != s.c

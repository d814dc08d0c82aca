"""Issue 27 through Textual's pilot: what is kept on `q`, what the offer restores, and that the
restored State (scenario, row, cursor, pin, undo history) equals the one lost.

Every kept file goes to the test's own XDG_STATE_HOME (tests/conftest.py ``state_home``).
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import scenario_io as io
from attn_tui.core import session_store as store
from attn_tui.core.builtins import DEFAULT, builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.session import OfferScreen, SessionKeeper

SIZE = (120, 40)


def keeper(state_home, **kw) -> SessionKeeper:
    return SessionKeeper(store.state_folder(), builtin(DEFAULT), DEFAULT, **kw)


def kept(state_home) -> list:
    return sorted((state_home / "attn-tui").glob("session-*.toml"))


def same_state(a, b) -> None:
    """Two (State, History) pairs hold the same scenario, row, cursor, pin and undo/redo stacks."""
    (sa, ha), (sb, hb) = a, b
    assert io.dumps(sa.scenario) == io.dumps(sb.scenario)
    assert (sa.row, sa.cursor) == (sb.row, sb.cursor)
    assert (sa.pin is None) == (sb.pin is None)
    if sa.pin is not None:
        assert io.dumps(sa.pin.scenario) == io.dumps(sb.pin.scenario) and sa.pin.row == sb.pin.row
    for x, y in ((ha.past, hb.past), (ha.future, hb.future)):
        assert [io.dumps(s.scenario) for s in x] == [io.dumps(s.scenario) for s in y]


async def make_edits(app, pilot, settle) -> None:
    """X[4,1] = 5 (as the editor commits it), c = 1.21, a pin, a mask toggle undone (a redo step)."""
    X = app.state.scenario.X.copy()
    X[3, 0] = 5.0
    app.set_state(app.state.with_scenario(X=X))
    await pilot.press("plus", "P", "plus", "m", "ctrl+z")
    await pilot.click("#grid-W_Q", offset=(12, 3))
    await settle(pilot)
    assert app.state.scenario.c == pytest.approx(1.21) and app.state.pin is not None
    assert app.history.future and app.state.cursor == ("W_Q", 1, 0)


@pytest.mark.slow
async def test_q_keeps_everything_and_the_offer_restores_it_equal(state_home, settle):
    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await make_edits(app, pilot, settle)
        lost = (app.state, app.history)
        await pilot.press("q")
    assert app.return_code == 0
    assert "your session (3 edits, c = 1.21) is kept in" in app.session.message
    assert len(kept(state_home)) == 1

    again = AttentionApp(session=keeper(state_home))
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, OfferScreen)
        offer = again.screen.query_one("#session-offer-text").render().plain
        assert "3 edits, c = 1.21" in offer and "first opened from lesson-pipeline" in offer
        assert again.state.scenario.c == 1.0  # nothing restored before the key
        assert "new here?" in again.screen_stack[0].query_one("#status").plain
        await pilot.press("enter")
        await settle(pilot)
        same_state((again.state, again.history), lost)
        assert "new here?" not in again.screen.query_one("#status").plain  # a learner back is not new here
        await pilot.press("ctrl+z")  # the restored history undoes
        await settle(pilot)
        assert again.state.scenario.c == pytest.approx(1.1)


async def test_a_stray_key_answers_nothing_and_n_starts_clean(state_home, settle):
    """Issue 42 item 1: a key the offer does not name neither starts clean nor acts (it says the keys
    again); n starts clean, and `+` after the offer has gone is a command again."""
    first = AttentionApp(session=keeper(state_home))
    async with first.run_test(size=SIZE) as pilot:
        await make_edits(first, pilot, settle)
        await pilot.press("ctrl+q")
    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("plus", "c", "e")
        await settle(pilot)
        assert isinstance(app.screen, OfferScreen)  # still asking
        assert app.state.scenario.c == 1.0 and not app.history.past and not app.state.scenario.cross
        shown = str(app.screen.query_one("#session-offer-text").render())
        assert "'e' does nothing here" in shown and "q quits" in shown and "n (or escape) starts clean" in shown
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, OfferScreen)
        assert app.state.scenario.c == 1.0 and not app.history.past  # clean
        await pilot.press("q")
    assert app.session.message is None and len(kept(state_home)) == 1  # nothing new, the kept one stays


async def test_resume_restores_without_asking_and_fresh_offers_nothing(state_home, settle):
    first = AttentionApp(session=keeper(state_home))
    async with first.run_test(size=SIZE) as pilot:
        await make_edits(first, pilot, settle)
        lost = (first.state, first.history)
        await pilot.press("q")
    app = AttentionApp(session=keeper(state_home, resume=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, OfferScreen)
        same_state((app.state, app.history), lost)
    fresh = AttentionApp(session=keeper(state_home, fresh=True))
    async with fresh.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(fresh.screen, OfferScreen) and fresh.state.scenario.c == 1.0


@pytest.mark.slow
async def test_a_session_equal_to_the_file_opened_is_not_offered(state_home, settle, tmp_path):
    """The kept scenario saved to a file and that file opened: nothing differs, nothing is asked."""
    first = AttentionApp(session=keeper(state_home))
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("plus")
        await settle(pilot)
        io.save(first.state.scenario.with_(focus_row=first.state.row + 1), tmp_path / "mine.toml")
        await pilot.press("q")
    opened = io.resolve(str(tmp_path / "mine.toml"))
    app = AttentionApp(scenario=opened, session=SessionKeeper(store.state_folder(), opened, "mine.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, OfferScreen)


async def test_no_edits_nothing_kept_and_without_a_keeper_nothing_written(state_home, settle):
    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j", "q")  # a row move is not an edit
    assert app.session.message is None and not kept(state_home)
    plain = AttentionApp()
    async with plain.run_test(size=SIZE) as pilot:
        await pilot.press("plus", "q")
    assert not (state_home / "attn-tui").exists()


async def test_the_training_run_is_said_not_kept(state_home, settle):
    from attn_tui.tui.screens.train import TrainScreen

    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, TrainScreen)
        await pilot.press("n", "n")
        await settle(pilot)
        await pilot.press("q")
    assert app.session.message == "attn-tui: the training run (step 2 of 300) is not kept"
    assert not kept(state_home)


async def test_an_unwritable_folder_says_so_in_one_line(state_home, settle):
    (state_home / "attn-tui").write_text("a file where the folder goes")
    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus", "q")
    folder = state_home / "attn-tui"
    assert app.session.message.startswith(f"attn-tui: the session was NOT kept: {folder} is not a folder")
    assert "\n" not in app.session.message and np.isfinite(app.state.scenario.c)


async def test_a_symlinked_state_folder_keeps_nothing_and_says_where(state_home, tmp_path, settle):
    """Issue 44: $XDG_STATE_HOME/attn-tui a symlink (to a stand-in for /etc): one line saying where
    the session would have gone; nothing written through the link."""
    elsewhere = tmp_path / "etc"
    elsewhere.mkdir()
    (state_home / "attn-tui").symlink_to(elsewhere)
    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus", "q")
    line = app.session.message
    assert line.startswith(f"attn-tui: the session was NOT kept: {state_home / 'attn-tui'} is a symlink")
    assert "\n" not in line and str(elsewhere) in line and list(elsewhere.iterdir()) == []


async def test_a_bad_state_file_is_one_line_on_the_first_screen(state_home, settle):
    folder = state_home / "attn-tui"
    folder.mkdir()
    (folder / "session-20260101T000000Z-00000000.toml").write_text('format = 0\nkind = "attn-tui session"\nsaved = 1\n')
    app = AttentionApp(session=keeper(state_home))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, OfferScreen)
        said = [str(n.message) for n in app.notes.shown()]
        assert any("from another version of attn-tui (format 0" in m and "\n" not in m for m in said), said


@pytest.mark.slow
async def test_a_crash_keeps_the_session_and_says_so(state_home, settle, monkeypatch, capsys):
    """An uncaught exception in an action: Textual exits 1; cli keeps the session after it."""
    from attn_tui.cli import explorer
    from attn_tui.tui.actions import files

    def boom(app):
        raise RuntimeError("a bug")

    monkeypatch.setattr(files, "open", boom)
    app = AttentionApp(session=keeper(state_home))
    with pytest.raises(RuntimeError, match="a bug"):
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("plus")
            await settle(pilot)
            await pilot.press("o")
    assert app.return_code == 1 and not kept(state_home)
    explorer.kept(app, app.return_code)
    assert "attn-tui: crash: your session (1 edit, c = 1.1) is kept in" in capsys.readouterr().err
    assert store.read(kept(state_home)[0]).scenario.c == pytest.approx(1.1)


def test_undo_steps_and_a_pin_above_512_tokens_are_left_out(state_home):
    """An opened .npz of 600 tokens then a small file: the large step is not written (no TOML holds it)."""
    from types import SimpleNamespace

    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.history import History
    from attn_tui.tui.state import State

    large = Scenario(Q=np.ones((600, 2)), K=np.ones((600, 2)), mask="none")
    small = builtin(DEFAULT).with_(c=2.0)
    h = History()
    h.past[:] = [State(large), State(builtin(DEFAULT))]
    app = SimpleNamespace(state=State(small, pin=State(large)), history=h, _screen_stacks={}, tour_kept=None)
    k = keeper(state_home).snapshot(app, "quit")
    assert [s.T for s in k.past] == [5] and k.pin is None
    assert store.loads(store.dumps(k)).edits == 1


async def test_an_explicit_scenario_opens_and_the_kept_session_is_one_line_and_a_key(state_home, settle):
    """Issue 51: `--scenario box-kernel` opened the kept session's dialog in front of what was asked for.
    Now the box kernel is shown, the kept session is offered in one line, and ctrl+r restores it."""
    from attn_tui.tui.session import OFFER_LINE

    first = AttentionApp(session=keeper(state_home))
    async with first.run_test(size=SIZE) as pilot:
        await make_edits(first, pilot, settle)
        lost = (first.state, first.history)
        await pilot.press("q")
    box = builtin("box-kernel")
    app = AttentionApp(scenario=box, session=SessionKeeper(store.state_folder(), box, "box-kernel", asked=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, OfferScreen) and app.state.scenario is box
        said = [m for m in app.notes.messages() if OFFER_LINE in m]
        assert len(said) == 1 and "3 edits, c = 1.21" in said[0] and "\n" not in said[0]
        await pilot.press("ctrl+r")
        await settle(pilot)
        same_state((app.state, app.history), lost)
        await pilot.press("ctrl+r")  # once restored, nothing more to restore: said, nothing changes
        await settle(pilot)
        assert any("no kept session to restore here" in m for m in app.notes.messages())
        same_state((app.state, app.history), lost)


def test_the_command_line_asks_for_the_line_only_with_a_scenario(state_home):
    """explorer.keeper: `attn-tui --scenario NAME` offers the kept session in a line; bare `attn-tui` asks."""
    from argparse import Namespace

    from attn_tui.cli import explorer

    def args(name):
        return Namespace(run_scenario=name, resume=False, fresh=False)

    assert explorer.keeper(args("box-kernel"), builtin("box-kernel")).asked is True
    assert explorer.keeper(args(None), None).asked is False

"""Issue 27 as a user meets it, in a real pseudo-terminal: edit (X[4,1] = 5, c = 1.21), lose the
process (the connection dropped, SIGHUP; SIGTERM; `q`), launch again, one key, the edits are back.

Each test reads the state folder the app wrote to (XDG_STATE_HOME, a folder of the test's own,
tests/conftest.py) and compares the kept session with the one the relaunched app keeps after the
restore: the same scenario bit for bit, row, cursor and undo history.
"""

from __future__ import annotations

import signal
import sys

import numpy as np
import pytest

from attn_tui.core import scenario_io as io
from attn_tui.core import session_store as store
from tests.tui.ptyrun import READY, PtyApp, edit_like_the_issue

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty"),
    pytest.mark.slow,  # each starts the explorer in a pty, some twice (test_signals_pty.py stays in the fast lane)
]


def kept_files(state_home):
    return sorted((state_home / "attn-tui").glob("session-*.toml"))


def the_one_kept(state_home) -> store.Kept:
    files = kept_files(state_home)
    assert len(files) == 1, files
    return store.read(files[0])


def same(a: store.Kept, b: store.Kept) -> None:
    """The two sessions hold the same State: scenario, row, cursor, pin and undo history."""
    assert io.dumps(a.scenario) == io.dumps(b.scenario)
    assert (a.row, a.cursor, a.pin is None) == (b.row, b.cursor, b.pin is None)
    assert [io.dumps(s) for s in a.past] == [io.dumps(s) for s in b.past]
    assert [io.dumps(s) for s in a.future] == [io.dumps(s) for s in b.future]


def x_4_1_is_5(p) -> bool:
    """X's row t4 shows 5.000 (False while that row is not on screen yet: a frame may be read half-drawn)."""
    line = p.line_of("t4 it")
    return line is not None and "5.000" in p.text.splitlines()[line]


def relaunch_and_restore(state_home, lost: store.Kept) -> None:
    """Launch again: the first screen offers the session; Enter restores it; `q` keeps it again, equal."""
    with PtyApp() as app:
        app.shows("A kept session")
        app.shows("3 edits, c = 1.21")
        app.send(b"\r")
        app.shows("restored")
        app.wait_for(x_4_1_is_5, "X[4,1] = 5 on screen")
        app.shows("c=1.210")
        app.send(b"q")
        assert app.exit_code() == 0
        assert "is kept in" in app.raw.decode(errors="replace")
    same(the_one_kept(state_home), lost)  # the file it was restored from is replaced, not doubled


def check_lost(state_home, why: str) -> store.Kept:
    lost = the_one_kept(state_home)
    assert lost.scenario.X[3, 0] == 5.0 and lost.scenario.c == pytest.approx(1.21)
    assert lost.edits == 3 and lost.why == why
    assert lost.past[0].X[3, 0] == 0.0 and lost.past[1].X[3, 0] == 5.0  # undo: before the edit, before the `+`s
    assert np.array_equal(lost.past[1].X, lost.scenario.X) and lost.past[2].c == pytest.approx(1.1)
    return lost


@pytest.mark.long
def test_a_dropped_connection_keeps_the_session(state_home):
    """The SSH client killed: our end of the pty closed, the kernel hangs the app up (SIGHUP)."""
    with PtyApp() as app:
        edit_like_the_issue(app)
        app.hang_up()
        assert app.exit_code() == 128 + signal.SIGHUP
    relaunch_and_restore(state_home, check_lost(state_home, "SIGHUP"))


@pytest.mark.long
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_signal_keeps_the_session_and_leaves_the_terminal_sane(state_home, sig):
    with PtyApp() as app:
        edit_like_the_issue(app)
        before = len(app.raw)
        app.proc.send_signal(sig)
        assert app.exit_code() == 128 + sig
        tail = bytes(app.raw[before:])
        for mode in (b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?1000l", b"\x1b[?1003l"):  # alt screen, cursor, mouse
            assert mode in tail, mode
        assert f"{signal.Signals(sig).name}: your session (3 edits".encode() in tail  # the line after the app
    relaunch_and_restore(state_home, check_lost(state_home, signal.Signals(sig).name))


@pytest.mark.long
def test_q_keeps_the_session_and_says_so(state_home):
    with PtyApp() as app:
        edit_like_the_issue(app)
        app.send(b"q")
        assert app.exit_code() == 0
        out = app.raw.decode(errors="replace")
        assert "your session (3 edits, c = 1.21) is kept in" in out and "--resume" in out
    relaunch_and_restore(state_home, check_lost(state_home, "quit"))


@pytest.mark.long
def test_n_starts_clean_and_resume_restores_without_asking(state_home):
    with PtyApp() as app:
        edit_like_the_issue(app)
        app.send(b"q")
        assert app.exit_code() == 0
    lost = the_one_kept(state_home)
    with PtyApp() as app:
        app.shows("A kept session")
        app.send(b"n")  # n: clean, and the key does nothing else
        app.wait_for(lambda p: "A kept session" not in p.text, "the offer gone")
        app.shows("c=1.000")
        app.send(b"q")
        assert app.exit_code() == 0
    same(the_one_kept(state_home), lost)  # still there for the next launch
    with PtyApp(["--resume"]) as app:
        app.shows("restored")
        app.shows("c=1.210")
        app.send(b"\x11")  # ctrl+q
        assert app.exit_code() == 0
    same(the_one_kept(state_home), lost)
    with PtyApp(["--fresh"]) as app:
        app.shows(READY)
        assert "A kept session" not in app.text
        app.send(b"q")
        assert app.exit_code() == 0


def test_a_benchmark_run_neither_offers_nor_keeps_a_session(state_home):
    """attn_tui.bench's pty runs press `+` and quit: in a state folder of their own, so a second run
    is not met by the first's offer (its keys would answer it) and nothing lands in the user's folder."""
    from attn_tui.bench import pty_bytes

    for _ in range(2):
        app = pty_bytes.PtyApp()
        try:
            app.key("+")
            assert "A kept session" not in app.screen.text()
        finally:
            app.close()
        assert app.proc.returncode == 0
    assert not (state_home / "attn-tui").exists()


@pytest.mark.long
def test_q_quits_from_the_offer_and_a_typed_shell_line_does_nothing(state_home):
    """Issue 42 item 1, as it happened: `q` at the offer started clean and the explorer kept running, so
    the next shell line typed into it toggled cross-attention (c) and opened Export (e). Now stray keys
    only say the offer's keys again, and `q` quits, the kept session left for the next launch."""
    with PtyApp() as app:
        edit_like_the_issue(app)
        app.send(b"q")
        assert app.exit_code() == 0
    lost = the_one_kept(state_home)
    with PtyApp() as app:
        app.shows("A kept session")
        app.shows("q quits")
        app.send(b"cd exp")  # a shell line typed into the wrong window, before its Enter
        app.shows("'p' does nothing here")
        assert "A kept session" in app.text and "Export" not in app.text
        app.send(b"q")
        assert app.exit_code() == 0
        assert "the kept session stays in" in app.raw.decode(errors="replace")
    same(the_one_kept(state_home), lost)  # untouched, offered again next time
    with PtyApp() as app:
        app.shows("A kept session")
        app.send(b"\r")
        app.shows("restored")
        app.shows("c=1.210")

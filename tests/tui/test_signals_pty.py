"""Issue 34 item 10 in a real pseudo-terminal: a signal leaves the terminal as it was found and the
exit code says what happened (128 + the signal); after SIGTSTP and SIGCONT (`fg`) the screen is
drawn again at once, without waiting for a key. No edit is made: nothing is kept, nothing is said.
"""

from __future__ import annotations

import signal
import sys
import time

import pytest

from tests.tui.ptyrun import DEADLINE, READY, PtyApp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and a pty")

RESET = {  # what Textual's shutdown writes; the old explorer died on the signal without them
    "alternate screen left": b"\x1b[?1049l",
    "cursor shown": b"\x1b[?25h",
    "mouse tracking off": b"\x1b[?1000l",
    "any-motion mouse off": b"\x1b[?1003l",
    "bracketed paste off": b"\x1b[?2004l",
}


def started() -> PtyApp:
    app = PtyApp()
    app.shows(READY)
    app.wait_for(lambda p: p.line_of("t4 it") is not None, "the pipeline drawn")
    return app


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_leaves_the_terminal_sane_and_exits_128_plus_it(sig):
    with started() as app:
        before = len(app.raw)
        app.proc.send_signal(sig)
        assert app.exit_code() == 128 + sig
        tail = bytes(app.raw[before:])
        missing = [what for what, seq in RESET.items() if seq not in tail]
        assert not missing, missing
        assert b"Traceback" not in tail and b"kept" not in tail  # no edit: nothing to keep, nothing said


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "T"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process state from /proc")
def test_after_sigtstp_and_sigcont_the_screen_is_drawn_again_without_a_key():
    with started() as app:
        app.proc.send_signal(signal.SIGTSTP)
        end = time.monotonic() + DEADLINE
        while not _stopped(app.proc.pid):
            assert time.monotonic() < end, "the app did not stop on SIGTSTP"
            app.pump(0.05)  # read what it writes while it leaves the screen (a full pty would block it)
        after = len(app.raw)
        app.proc.send_signal(signal.SIGCONT)
        app.wait_for(lambda p: b"palette" in p.raw[after:] and b"t4 it" in p.raw[after:], "the screen drawn again")
        assert app.proc.poll() is None
        app.send(b"q")
        assert app.exit_code() == 0

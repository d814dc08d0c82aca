"""Issue 42 item 3, in a real terminal: keys typed in one burst after a refused value are all applied,
in order. `abc` enter is refused, then ⌫⌫⌫ `5` enter arrive in one write: Textual ran the three
deletions after the 5 (an Input's editing keys go round the binding check, its characters do not),
so 'abc5' lost three characters and 'a' was refused. widgets/ordered_input.py applies them in place."""

from __future__ import annotations

import sys

import pytest

from tests.tui.ptyrun import READY, PtyApp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")


def test_a_burst_after_a_refusal_is_applied_in_order():
    with PtyApp() as app:
        app.shows(READY)
        app.wait_for(lambda p: p.line_of("t4 it") is not None, "X's row t4 on screen")
        app.click(12, app.line_of("t4 it"))
        app.wait_for(lambda p: "X[4,1] = 0.000" in p.text, "the cell inspector on X[4,1]")
        app.send(b"\r")
        app.shows("row 4, column 1")  # the cell editor
        app.send(b"abc\r")
        app.shows("'abc' is not a")  # refused, the editor stays open on 'abc'
        app.send(b"\x7f\x7f\x7f5\r")  # one write: backspace ×3, 5, enter
        app.shows("X[4,1] = 5.000")  # the inspector on the committed cell
        assert "'a' is not a" not in app.text
        app.send(b"q")
        assert app.exit_code() == 0

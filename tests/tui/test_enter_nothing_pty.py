"""Issue 42 item 2, as a user meets it in a real terminal: enter on a pane with nothing to type into
(the entropy table, the inspector), then `abc` typed at once. Before, `a` added a token, `b` opened
padding, `c` turned cross-attention on. Now enter says in one line what it edits and how to get there,
and every letter typed after it stays in that message until enter or escape closes it."""

from __future__ import annotations

import sys

import pytest

from tests.tui.ptyrun import READY, PtyApp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")


@pytest.mark.parametrize("clicks", ["entropy", "inspector"])
def test_enter_then_letters_on_a_pane_with_nothing_to_edit(clicks):
    with PtyApp() as app:
        app.shows(READY)
        if clicks == "entropy":
            app.wait_for(lambda p: p.line_of(" t  log₂t") is not None or "log₂t" in p.text, "the entropy table")
            y = next(i for i, line in enumerate(app.text.splitlines()) if "log₂t" in line)
            x = app.text.splitlines()[y].index("log₂t")
            app.click(x, y + 2)  # a cell of the entropy table
        else:
            y = next(i for i, line in enumerate(app.text.splitlines()) if "nspector" in line)
            x = app.text.splitlines()[y].index("nspector")
            app.click(x, y + 2)  # inside the inspector
        app.send(b"\r")
        app.shows("Enter edits a cell of X, W_Q, W_K or W_V")  # one line at 120 columns
        app.send(b"abc")  # typed at once, as into a field
        app.shows("'c' went nowhere")
        assert "1 token" not in app.text and "Padding" not in app.text
        app.send(b"\x1b")  # escape closes it
        app.wait_for(lambda p: "went nowhere" not in p.text, "the message closed")
        app.send(b"q")
        assert app.exit_code() == 0
    out = app.raw.decode(errors="replace")
    assert "kept in" not in out  # nothing was edited: `a`, `b`, `c` never acted

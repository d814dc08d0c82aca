"""The explorer follows its terminal's size, in a real pseudo-terminal (a resize is a SIGWINCH, as
tmux, a window manager or an SSH client sends it). A correction meant for `attn-tui serve` (the web
driver's stale start size, framework.reported_size) once read a terminal's launch size as current
and answered every resize with one back to it: the screen stayed at 120×40, cut off, without its
key bar. Pilot tests cannot see this: their driver is headless."""

from __future__ import annotations

import sys

import pytest

from tests.tui.ptyrun import READY, PtyApp

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="a pty"), pytest.mark.slow]


def bottom(app: PtyApp) -> str:
    return app.text.splitlines()[-1] if app.text else ""


def test_a_resized_terminal_gets_the_screen_fitted_to_it(tmp_path):
    with PtyApp(env={"XDG_STATE_HOME": str(tmp_path)}) as app:
        app.shows(READY)
        for width, height in ((70, 20), (100, 30), (120, 40)):
            app.resize(width, height)
            app.wait_for(lambda p: "? Help" in bottom(p) and "palette" in bottom(p), f"the key bar on line {height}")
            lines = app.text.splitlines()
            assert len(lines) == height and "c=1.000" in lines[-2], lines[-2:]  # the status line above it
            assert all(len(line) <= width for line in lines)

"""Issue 52 item 2 in a real pseudo-terminal: q quits at once while a screen's worker is still reading
heads. A sparse .safetensors of 1,024 layers x 1,024 heads (a few KB on disk) keeps the heads screen
(`h`: its layer, then the rollout of every layer) and the model view of every layer (`M M`) reading
for minutes. Before, the screen went away but the process kept reading, deaf to q, Ctrl-C and SIGTERM:
asyncio's default executor was shut down with wait=True, and its threads were joined at exit
(tui/worker_threads.py). The wait is on the process's exit, bounded by ptyrun.DEADLINE."""

from __future__ import annotations

import signal
import sys

import pytest

from tests.core.badheads import sparse_heads
from tests.tui.ptyrun import READY, PtyApp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pty")


@pytest.mark.parametrize(
    "keys",
    [
        # the heads screen: its layer's tiles drawn, then the rollout of 1,024 x 1,024 heads under way
        (("h", "L0.H0 ·"),),
        # the model view: layer 0's 1,024 heads drawn, then every layer's being read
        (("M", "L0.H0 t1"), ("M", "reading every head")),
    ],
    ids=["heads", "model-every-layer"],
)
def test_q_quits_while_a_worker_reads(tmp_path, keys):
    path = sparse_heads(tmp_path / "many.safetensors", L=1024, H=1024, T=16)
    with PtyApp(["--scenario", str(path), "--fresh"]) as app:
        app.shows(READY)
        for key, shown in keys:
            app.send(key.encode())
            app.shows(shown)
        app.send(b"q")
        assert app.exit_code() == 0  # waits on the exit (AssertionError "did not exit" past the deadline)


def test_sigterm_ends_it_while_a_worker_reads(tmp_path):
    """The same read, ended by SIGTERM: the session's signal handler exits, 128 + 15, without waiting."""
    path = sparse_heads(tmp_path / "many.safetensors", L=1024, H=1024, T=16)
    with PtyApp(["--scenario", str(path), "--fresh"]) as app:
        app.shows(READY)
        app.send(b"h")
        app.shows("L0.H0 ·")
        app.proc.send_signal(signal.SIGTERM)
        assert app.exit_code() == 128 + signal.SIGTERM

"""`attn-tui serve` in a subprocess for the serve tests: a free port, readiness by polling the
socket (no fixed sleep), and the whole process group ended in teardown (the server and the
explorers it started per websocket)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

STARTUP = 60.0  # seconds a busy 2-core machine may take to start Python, aiohttp and bind


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(proc, port: int, deadline: float) -> None:
    """Until 127.0.0.1:port accepts a connection; fails at once if the server exited."""
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"attn-tui serve exited with {proc.returncode}: {proc.stdout.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"attn-tui serve did not listen on {port} within {STARTUP} s") from None
            time.sleep(0.05)  # a poll interval, not a wait for a result


@contextmanager
def served(*args: str):
    """``with served("--scenario", "box-kernel") as port:`` the server, listening."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "attn_tui", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: the teardown ends the explorers too
    )
    try:
        wait_listening(proc, port, time.monotonic() + STARTUP)
        yield port
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        finally:
            proc.stdout.close()

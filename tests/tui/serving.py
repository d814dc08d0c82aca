"""`attn-tui serve` in a subprocess for the serve tests: a free port, readiness by polling the
socket and the printed URL (no fixed sleep), its output drained by a thread (read by the tests:
the URL with the token, the log lines), and the whole process group ended in teardown (the server
and the explorers it started per websocket)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

STARTUP = 60.0  # seconds a busy 2-core machine may take to start Python, aiohttp and bind
URL = re.compile(r"attn-tui serve: open (\S+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    """The running server: its process, port, printed URL and what it has written so far."""

    proc: subprocess.Popen
    port: int
    lines: list[str] = field(default_factory=list)
    url: str = ""

    @property
    def token(self) -> str | None:
        return parse_qs(urlsplit(self.url).query).get("token", [None])[0]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, width: int = 120, height: int = 40) -> str:
        token = f"token={self.token}&" if self.token else ""
        return f"ws://127.0.0.1:{self.port}/ws?{token}width={width}&height={height}"

    def output(self) -> str:
        return "".join(self.lines)

    def wait_output(self, text: str, seconds: float = 60) -> None:
        """Until the server's output contains ``text`` (bounded polling)."""
        deadline = time.monotonic() + seconds
        while text not in self.output():
            assert time.monotonic() < deadline, f"not in the server's output within {seconds} s: {text!r}"
            time.sleep(0.05)  # a poll interval, not a wait for a result

    def tabs(self) -> list[int]:
        """The server's child processes (one explorer per open tab), from /proc."""
        kids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        stat = f.read()
                except OSError:
                    continue
                fields = stat.rsplit(")", 1)[1].split()
                if int(fields[1]) == self.proc.pid and fields[0] != "Z":
                    kids.append(int(entry))
        return kids


def _drain(proc, lines: list[str]) -> None:
    for line in proc.stdout:
        lines.append(line)


def wait_ready(s: Served, deadline: float) -> None:
    """Until 127.0.0.1:port accepts a connection and the URL is printed; fails at once if the server exited."""
    while True:
        if s.proc.poll() is not None:
            raise AssertionError(f"attn-tui serve exited with {s.proc.returncode}: {s.output()}")
        m = URL.search(s.output())
        try:
            socket.create_connection(("127.0.0.1", s.port), timeout=1).close()
            if m:
                s.url = m.group(1)
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"attn-tui serve did not listen on {s.port} within {STARTUP} s: {s.output()}")
        time.sleep(0.05)  # a poll interval, not a wait for a result


@contextmanager
def served(*args: str, cwd=None):
    """``with served("--scenario", "box-kernel") as s:`` the server, listening (s.port, s.url)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "attn_tui", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=cwd,
        start_new_session=True,  # its own process group: the teardown ends the explorers too
    )
    s = Served(proc, port)
    threading.Thread(target=_drain, args=(proc, s.lines), daemon=True).start()
    try:
        wait_ready(s, time.monotonic() + STARTUP)
        yield s
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()

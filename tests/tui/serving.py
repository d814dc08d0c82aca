"""`attn-tui serve` in a subprocess for the serve tests: a free port, readiness when the URL is printed
(the server prints it once its socket is bound), its output drained by a thread that wakes every
waiter on each line (read by the tests: the URL with the token, the log lines; nothing sleeps or
polls), a process's end awaited through its pidfd, and the whole process group ended in teardown
(the server and the explorers it started per websocket)."""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
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
    changed: threading.Condition = field(default_factory=threading.Condition)  # notified on each line and at EOF
    ended: bool = False  # the server's output closed: it exited

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

    def wait_for(self, predicate, seconds: float) -> bool:
        """Whether ``predicate()`` came true within ``seconds``, checked as each line arrives (no polling)."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout=seconds)

    def wait_output(self, text: str, seconds: float = 60) -> None:
        """Until the server's output contains ``text`` (the bound only stops a server that never says it)."""
        assert self.wait_for(lambda: text in self.output(), seconds), (
            f"not in the server's output within {seconds} s: {text!r}"
        )

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


def _drain(s: Served) -> None:
    for line in s.proc.stdout:
        with s.changed:
            s.lines.append(line)
            s.changed.notify_all()
    with s.changed:
        s.ended = True
        s.changed.notify_all()


def wait_ready(s: Served, seconds: float = STARTUP) -> None:
    """Until the URL is printed (after the socket is bound), then 127.0.0.1:port accepts a connection;
    fails as soon as the server's output ends (it exited)."""
    printed = s.wait_for(lambda: URL.search(s.output()) or s.ended, seconds)
    m = URL.search(s.output())
    if not m:
        state = "exited" if printed else f"printed no URL within {seconds} s"
        raise AssertionError(f"attn-tui serve {state} ({s.proc.poll()}): {s.output()}")
    socket.create_connection(("127.0.0.1", s.port), timeout=10).close()  # bound before the URL was printed
    s.url = m.group(1)


def wait_ended(pids, seconds: float = 60) -> None:
    """Until each process of ``pids`` has ended (a zombie or gone), awaited on its pidfd: readable at its end."""
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # gone already
        try:
            ready, _, _ = select.select([fd], [], [], seconds)
            assert ready, f"process {pid} did not end within {seconds} s"
        finally:
            os.close(fd)


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
    threading.Thread(target=_drain, args=(s,), daemon=True).start()
    try:
        wait_ready(s)
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

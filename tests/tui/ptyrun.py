"""The explorer in a real pseudo-terminal, started as a user starts it, for the session and signal tests.

``python -m attn_tui ARGS`` runs in a 120×40 pty that is its controlling terminal (so closing
our end hangs it up, as a dropped SSH connection does). Every byte it writes is kept (``raw``)
and fed to the small screen emulator of attn_tui.bench.pty_bytes. Waiting is on what the
screen shows or on the process's state, each with a bounded deadline, never on a fixed sleep.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

READY = "palette"  # the key bar's last hint: the first frame is on screen
CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
PLAIN = re.compile(rb"\x1b\[[0-9;]*[Hm]")  # what the emulator draws with: cursor moves and styles
DEADLINE = 60.0  # seconds: a bound for a busy shared machine, not a measure of anything


def _controlling_tty() -> None:  # in the child, after setsid (start_new_session): the pty becomes its terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyApp:
    def __init__(self, args=(), env: dict | None = None, size=(120, 40)) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL_THEME", "CI")}
        full.update(TERM="xterm-256color", COLORTERM="truecolor", **(env or {}))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "attn_tui", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=full,
            start_new_session=True,
            preexec_fn=_controlling_tty,
            close_fds=True,
        )
        os.close(slave)
        self.fd: int | None = master
        from attn_tui.bench.pty_bytes import Screen  # here: the report's pty tests import this module without Textual

        self.screen = Screen(*size)
        self.raw = bytearray()
        self._tail = b""

    @property
    def text(self) -> str:
        return self.screen.text()

    def _read(self, wait: float) -> bool:
        """Read what is there (waiting up to ``wait`` s); False once the other end is closed."""
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the app closed the terminal (it exited)
            return False
        if not chunk:
            return False
        self.raw += chunk
        self.screen.feed(self._drawing(chunk))
        return True

    def _drawing(self, chunk: bytes) -> bytes:
        """``chunk`` less the control sequences the emulator does not know (modes, queries: ESC [ > 25 u,
        ESC [ ? 2026 $ p ...), a sequence cut by the read kept for the next chunk."""
        data, self._tail = self._tail + chunk, b""
        cut = data.rfind(b"\x1b")
        if cut >= 0 and not CSI.match(data, cut) and len(data) - cut < 64 and data[cut + 1 : cut + 2] in (b"", b"["):
            data, self._tail = data[:cut], data[cut:]
        return CSI.sub(lambda m: m.group(0) if PLAIN.fullmatch(m.group(0)) else b"", data)

    def pump(self, wait: float) -> None:
        """Read what the app wrote, waiting at most ``wait`` s for it."""
        self._read(wait)

    def wait_for(self, condition, what: str) -> None:
        """Read until ``condition(self)`` holds; AssertionError naming ``what`` and the screen after DEADLINE."""
        end = time.monotonic() + DEADLINE
        while not condition(self):
            if time.monotonic() > end or not self._read(0.2):
                if condition(self):
                    return
                raise AssertionError(f"waited for {what}; the screen:\n{self.text}\nexit: {self.proc.poll()}")

    def shows(self, text: str) -> None:
        self.wait_for(lambda p: text in p.text, repr(text))

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def resize(self, width: int, height: int) -> None:
        """Resize the terminal as a window manager or tmux does (the kernel sends SIGWINCH); the
        screen emulator starts blank at the new size (the app draws its whole screen again)."""
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        self.screen = type(self.screen)(width, height)

    def click(self, x: int, y: int) -> None:
        """A left click at 0-based cell (x, y), as an xterm SGR mouse report."""
        self.send(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m".encode())

    def line_of(self, prefix: str) -> int | None:
        """The 0-based screen line that starts with ``prefix`` (the first one), or None."""
        return next((i for i, line in enumerate(self.text.splitlines()) if line.startswith(prefix)), None)

    def exit_code(self) -> int:
        """Read everything the app writes until it exits; its exit code."""
        end = time.monotonic() + DEADLINE
        while self.proc.poll() is None and time.monotonic() < end:
            if self.fd is None or not self._read(0.2):
                try:
                    return self.proc.wait(timeout=max(0.1, end - time.monotonic()))
                except subprocess.TimeoutExpired:
                    break
        if self.proc.poll() is None:
            raise AssertionError(f"the app did not exit; the screen:\n{self.text}")
        while self.fd is not None and self._read(0):  # what it wrote last
            if not select.select([self.fd], [], [], 0)[0]:
                break
        return self.proc.returncode

    def hang_up(self) -> None:
        """Close our end of the terminal: the kernel sends SIGHUP, as when an SSH connection drops."""
        os.close(self.fd)
        self.fd = None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> PtyApp:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def edit_like_the_issue(app: PtyApp) -> None:
    """Issue 27's steps: X[4,1] = 5 (click the cell, enter, type 5, enter), then c = 1.21 (`+` twice)."""
    app.shows(READY)
    app.wait_for(lambda p: p.line_of("t4 it") is not None, "X's row t4 on screen")
    app.click(12, app.line_of("t4 it"))
    app.wait_for(lambda p: "X[4,1] = 0.000" in p.text, "the cell inspector on X[4,1]")
    app.send(b"\r")
    app.shows("row 4, column 1")  # the cell editor's title
    app.send(b"5\r")
    app.shows("X[4,1] = 5.000")
    app.send(b"+")
    app.shows("c=1.100")
    app.send(b"+")
    app.shows("c=1.210")

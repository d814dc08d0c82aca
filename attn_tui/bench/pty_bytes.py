"""Bytes per keypress through a real pty, the app started as a user starts it.

``python -m attn_tui [--scenario FILE]`` runs in a 120×40 pseudo-terminal with
TERM=xterm-256color and COLORTERM=truecolor; every byte it writes is read. A keypress's
figure is what the app writes between the key and the moment it falls quiet (no byte for
``QUIET`` seconds: the benchmark, not a test, may wait on silence).

The floor of each figure, from the same bytes: a small emulator of what Textual writes
(cursor moves, SGR styles, text) keeps the screen, and the floor is what Textual's own
encoding needs to put only the cells that changed on screen: per run of changed cells one
cursor move, per run of one style its SGR, the text and a reset.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from typing import TYPE_CHECKING

from rich.cells import cell_len

if TYPE_CHECKING:
    from typing import Any

READY = "palette"  # the key bar's last hint: the first frame is on screen
QUIET = 0.35  # seconds without a byte: the app has drawn everything the key changed
TOKEN = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>78]|([^\x1b]+)")


class Screen:
    """The cells Textual drew: (text, sgr) per cell, from its cursor moves, SGRs and text."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[(" ", "")] * width for _ in range(height)]
        self.x = self.y = 0
        self.sgr = ""
        self._tail, self._decode = "", codecs.getincrementaldecoder("utf-8")("replace").decode

    def feed(self, data: bytes) -> None:
        """Bytes as read: a sequence cut by the read is kept until its end comes."""
        text = self._tail + self._decode(data)
        cut = text.rfind("\x1b")
        if cut >= 0 and not re.match(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07\x1b]*(\x07|\x1b\\)|[=>78])", text[cut:]):
            text, self._tail = text[:cut], text[cut:]
        else:
            self._tail = ""
        for m in TOKEN.finditer(text):
            params, op, text = m.group(1), m.group(2), m.group(3)
            if text is not None:
                self._text(text)
            elif op == "H":
                y, _, x = (params or "1;1").partition(";")
                self.y, self.x = int(y or 1) - 1, int(x or 1) - 1
            elif op == "m":
                self.sgr = "" if params in ("", "0") else params

    def _text(self, text: str) -> None:
        for ch in text:
            if ch == "\n":
                self.y, self.x = self.y + 1, 0
            elif ch == "\r":
                self.x = 0
            elif 0 <= self.y < self.height and 0 <= self.x < self.width and ch >= " ":
                self.cells[self.y][self.x] = (ch, self.sgr)
                self.x += max(1, cell_len(ch))

    def text(self) -> str:
        return "\n".join("".join(ch for ch, _ in row) for row in self.cells)

    def snapshot(self) -> list[list[tuple[str, str]]]:
        return [row[:] for row in self.cells]


def changed_floor(before, after) -> tuple[int, int]:
    """(cells changed, bytes Textual's encoding needs to write only those cells)."""
    cells = total = 0
    for y, (old, new) in enumerate(zip(before, after)):
        x = 0
        while x < len(new):
            if old[x] == new[x]:
                x += 1
                continue
            total += len(f"\x1b[{y + 1};{x + 1}H")
            while x < len(new) and old[x] != new[x]:
                sgr, run = new[x][1], ""
                while x < len(new) and old[x] != new[x] and new[x][1] == sgr:
                    run, x, cells = run + new[x][0], x + 1, cells + 1
                total += len(run.encode()) + (len(f"\x1b[{sgr}m\x1b[0m") if sgr else 0)
    return cells, total


class PtyApp:
    """``python -m attn_tui *args`` in a pty of ``size``; :meth:`key` -> (bytes, floor bytes).
    ``ready``: the text that says the first frame is drawn (default READY); None: nothing is read
    yet (launch.py reads and times it). ``env``: variables set for the app (None: unset)."""

    def __init__(
        self, args: Any = (), size=(120, 40), cmd=None, ready: str | None = "", env: dict | None = None
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL_THEME", "CI")}
        full.update(TERM="xterm-256color", COLORTERM="truecolor")
        for name, value in (env or {}).items():
            if value is None:
                full.pop(name, None)
            else:
                full[name] = value
        # A state folder of its own: a run never offers a kept session (its keys would answer the offer)
        # and never keeps one in the user's (tui/session.py).
        self.state_home = tempfile.mkdtemp(prefix="attn-bench-state-")
        full["XDG_STATE_HOME"] = self.state_home
        self.proc = subprocess.Popen(
            cmd or [sys.executable, "-m", "attn_tui", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=full,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.fd, self.screen = master, Screen(*size)
        self.raw: list[bytes] = []
        self.startup = None if ready is None else self._drain(first_wait=30.0, until=ready or READY)

    def _drain(self, first_wait: float = 5.0, until: str = "") -> tuple[int, int]:
        """Read until QUIET seconds pass without a byte (and, with ``until``, not before the
        screen shows that text); (bytes read, floor bytes)."""
        before, data, wait = self.screen.snapshot(), b"", first_wait
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                if until and until not in self.screen.text():
                    continue
                break
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            data, wait = data + chunk, QUIET
            self.screen.feed(chunk)
        self.raw.append(data)
        return len(data), changed_floor(before, self.screen.cells)[1]

    def key(self, key: str) -> tuple[int, int]:
        os.write(self.fd, key.encode())
        return self._drain(first_wait=1.0)  # a key that changes nothing writes nothing

    def cpu_ns(self) -> int:
        """CPU time the app's process has used so far, all its threads, in nanoseconds (Linux)."""
        total = 0
        for task in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                with open(f"/proc/{self.proc.pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            except OSError:  # a thread that just ended
                pass
        return total

    def cpu_ms_per_key(self, key: str, presses: int) -> float:
        """CPU milliseconds per ``key``, each press read until the app falls quiet."""
        t0 = self.cpu_ns()
        for _ in range(presses):
            self.key(key)
        return (self.cpu_ns() - t0) / 1e6 / presses

    def close(self) -> None:
        os.write(self.fd, b"q\x11")  # q, and ctrl+q for an app without q
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.fd)
        shutil.rmtree(self.state_home, ignore_errors=True)


def measure(args: Any = (), presses: int = 5, rows: int = 5, keys=("+", "jk", "nochange")) -> dict:
    """(bytes, floor) for start-up and keys: `+` (the first press, then the median of ``presses``),
    `j`/`k` alternately, and a key that changes nothing (`j` on the last row, ``rows`` `j` down)."""
    app = PtyApp(args)
    try:
        out = {"startup": app.startup, "plus first": app.key("+")}
        out["plus"] = _median([app.key("+") for _ in range(presses)])
        if "jk" in keys:
            out["jk"] = _median([app.key("k" if i % 2 == 0 else "j") for i in range(presses * 2)])
        if "nochange" in keys:
            for _ in range(rows):  # to the last row
                app.key("j")
            out["nochange"] = _median([app.key("j") for _ in range(presses)])
        return out
    finally:
        app.close()


def _median(pairs: list[tuple[int, int]]) -> tuple[int, int]:
    pairs = sorted(pairs)
    return pairs[len(pairs) // 2]


if __name__ == "__main__":
    t0 = time.perf_counter()
    print(measure(sys.argv[1:]), f"{time.perf_counter() - t0:.1f}s")

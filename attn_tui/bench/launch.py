"""Launch time: exec to the first full screen, in a 120×40 pty, against a bare Textual app process.

The explorer is started as a user starts it (``python -m attn_tui``); its clock stops when the
screen shows A's title and the key bar's last hint (Textual writes the first frame whole, so both
are there together). The floor is a python process that imports what the explorer's first screen
cannot do without (numpy, textual, textual_plotext and so plotext) and draws one widget, timed
the same way: until its text is on the screen. Runs alternate (explorer, bare, explorer, ...) so
a load that comes and goes meets both; the figures are the medians. Wall time: launch is what a
user waits for, whatever else the machine does, so say the load with the figures.

Both start as on every launch after the first: one untimed launch of each writes the bytecode
(into a temporary PYTHONPYCACHEPREFIX, whatever PYTHONDONTWRITEBYTECODE says: an installed package
has its .pyc files) and brings the files into the page cache.
"""

from __future__ import annotations

import os
import select
import statistics
import sys
import tempfile
import time

from .pty_bytes import PtyApp

GOAL = 1.3  # issue 32: launch at most 1.3x the bare app's
EXPLORER_READY = ("softmax(S + M)", "palette")  # A's title, the key bar's last hint
BARE_READY = ("bare app: first frame",)
BARE = """
import numpy, plotext, textual_plotext
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("bare app: first frame")

Bare().run()
"""
DEADLINE = 120.0  # seconds: a bound for a busy machine, not a measure


def launch_s(cmd: list[str], ready: tuple[str, ...], env: dict | None = None, settle: float = 0.0):
    """(wall seconds, CPU seconds of the process) from starting ``cmd`` in a 120×40 pty to the arrival
    of the bytes that complete a screen showing every text of ``ready``; with ``settle`` > 0 a third
    item: whether that screen is the one the terminal shows ``settle`` seconds later (the clock stopped
    at the whole first screen, not at a frame drawn again after it).

    The bytes are read as they come and parsed (this module's terminal, in Python) only when the
    stream pauses; the clock and the process's CPU are read at each read, so the time is when the
    screen's last byte arrived, not when this parser was done with it (~4 ms for the explorer's
    29 KB first frame, against ~0.1 ms for the floor's one line: a terminal parses in C)."""
    t0 = time.perf_counter()
    app = PtyApp(cmd=cmd, ready=None, env=env)
    try:
        end, stamp = t0 + DEADLINE, (0.0, 0)
        pending: list[bytes] = []
        while True:
            if time.perf_counter() > end or app.proc.poll() is not None:
                raise RuntimeError(f"{' '.join(cmd[:3])}: no first frame showing {ready!r}")
            chunk = _read(app, 0.0 if pending else 1.0)
            if chunk:
                pending.append(chunk)
                stamp = (time.perf_counter(), app.cpu_ns())
                continue
            if pending:  # the stream paused: parse what came, then look for the first screen
                app.screen.feed(b"".join(pending))
                pending.clear()
                if all(text in app.screen.text() for text in ready):
                    break
        wall, cpu = stamp[0] - t0, stamp[1] / 1e9
        if not settle:
            return wall, cpu
        first, until = app.screen.text(), time.perf_counter() + settle
        while time.perf_counter() < until:
            chunk = _read(app, 0.05)
            if chunk:
                app.screen.feed(chunk)
        return wall, cpu, app.screen.text() == first
    finally:
        app.close()


def _read(app: PtyApp, timeout: float) -> bytes:
    """What the pty has within ``timeout`` seconds (b"" if nothing, or the other end closed)."""
    if select.select([app.fd], [], [], timeout)[0]:
        try:
            return os.read(app.fd, 65536)
        except OSError:  # the other end closed: poll() says so next time round
            pass
    return b""


def measure(runs: int = 5, args: tuple[str, ...] = ()) -> dict:
    """Medians of ``runs`` interleaved launches of the explorer (``python -m attn_tui *args``) and
    of the bare app: wall and CPU seconds, and the ratios."""
    explorer: list[tuple] = []  # launch_s's (wall, cpu) of each run
    bare: list[tuple] = []
    cases = (
        ([sys.executable, "-m", "attn_tui", *args], EXPLORER_READY, explorer),
        ([sys.executable, "-c", BARE], BARE_READY, bare),
    )
    with tempfile.TemporaryDirectory(prefix="attn-bench-pyc-") as pyc:
        env = {"PYTHONPYCACHEPREFIX": pyc, "PYTHONDONTWRITEBYTECODE": None}
        for cmd, ready, _ in cases:  # the warm-up: bytecode written, files cached
            launch_s(cmd, ready, env)
        for _ in range(runs):
            for cmd, ready, times in cases:
                times.append(launch_s(cmd, ready, env))
        settled = launch_s(cases[0][0], EXPLORER_READY, env, settle=1.0)[2]  # one more launch, not timed
    r = {"runs": runs, "explorer_all": explorer, "bare_all": bare, "first_is_settled": settled}
    for i, kind in enumerate(("wall", "cpu")):
        e, b = statistics.median(t[i] for t in explorer), statistics.median(t[i] for t in bare)
        r.update({f"explorer_{kind}_s": e, f"bare_{kind}_s": b, f"{kind}_ratio": e / b})
    return r


def report(r: dict) -> list[str]:
    return [
        f"Launch, exec to the first full screen in a 120x40 pty (medians of {r['runs']} interleaved runs; "
        "floor: a bare Textual app importing numpy, textual, textual_plotext and drawing one widget):",
        f"  explorer {r['explorer_wall_s']:.2f} s   floor {r['bare_wall_s']:.2f} s   {r['wall_ratio']:.2f}x   "
        f"(goal <= {GOAL}x)",
        f"  CPU time of the process until then: explorer {r['explorer_cpu_s']:.2f} s   floor {r['bare_cpu_s']:.2f} s   "
        f"{r['cpu_ratio']:.2f}x   (less sensitive to a shared machine's load)",
        "  the explorer's screen when its clock stopped "
        + (
            "is the one it shows a second later (drawn whole)"
            if r.get("first_is_settled", True)
            else "DIFFERS from the one it shows a second later: the clock stopped at a frame drawn again"
        ),
    ]


def load() -> str:
    """The load averages, to print beside the figures (a shared machine)."""
    return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print("\n".join(report(measure(n))), f"  ({load()})", sep="\n")

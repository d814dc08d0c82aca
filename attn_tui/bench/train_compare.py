"""The training comparison in the app against the CLI: `python -m attn_tui.bench --compare`.

The same runs both ways: scaled and unscaled at d_k = 4, 64, 256, seed 0, lr 0.5, ``steps`` steps
(the app's c and `attn-tui train --compare`), timed as a user waits for them:

- CLI: ``python -m attn_tui train --compare --steps N``, from exec to exit (its text read);
- its work: core.train.compare.compare_all() in this process, as the CLI calls it (no start-up):
  the stricter floor;
- app: ``python -m attn_tui`` in a 120×40 pty (pty_bytes.PtyApp), T, then c: from the key to the
  screen showing "measured," (the table drawn). The app starts before the clock does;
- app, live: the same, c pressed just after space started a training run on the screen;
- the screen meanwhile: ms from n (one step) to its count on screen, during the comparison and before.

Interleaved rounds, medians; the ratios app / CLI (goal ≤ 1.3) and app / its work. The app's
comparison takes compare.COMPARE_STEPS steps: a launcher sets it to ``steps`` first, so a reduced
count (for quick repeats) is the same runs in both.
"""

from __future__ import annotations

import argparse
import math
import os
import select
import statistics
import subprocess
import sys
import time

from ..core.machine import cpus
from ..core.train import compare
from ..core.train.run import Config
from .pty_bytes import PtyApp

GOAL = 1.3
SHOWN = "measured,"  # the comparison's status line once its rows are drawn
READY = "c compare"  # the training screen's hint: it is drawn
RUNNING = "running"  # the comparison's progress line (and the line before processes were used)
LAUNCH = (
    "from attn_tui.core.train import compare; compare.COMPARE_STEPS = {steps}; "
    "from attn_tui.cli import main; raise SystemExit(main([]))"
)


def cli_s(steps: int) -> float:
    """Seconds from exec to exit of `attn-tui train --compare --steps N` (its output read)."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "attn_tui", "train", "--compare", "--steps", str(steps)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    took = time.perf_counter() - t0
    if out.returncode != 0 or "d_k" not in out.stdout:
        raise RuntimeError(f"attn-tui train --compare failed: {out.stderr.strip()[-300:]}")
    return took


def work_s(steps: int) -> float:
    """Seconds of compare_all() here, as the CLI calls it (the same processes), without its start-up."""
    t0 = time.perf_counter()
    compare.compare_all(Config(steps=steps), compare.DKS, jobs=cpus())
    return time.perf_counter() - t0


def _read_until(app: PtyApp, text: str, limit: float) -> bool:
    """Read the app's bytes until its screen shows ``text`` (False after ``limit`` seconds)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if select.select([app.fd], [], [], 0.5)[0]:
            try:
                chunk = os.read(app.fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            app.screen.feed(chunk)
            if text in app.screen.text():
                return True
    return False


def _answer_ms(app: PtyApp, key: bytes, text: str) -> float:
    """Milliseconds from ``key`` written to ``text`` on the app's screen."""
    t0 = time.perf_counter()
    os.write(app.fd, key)
    if not _read_until(app, text, 120):
        raise RuntimeError(f"the app never showed {text!r}")
    return (time.perf_counter() - t0) * 1000


def app_s(steps: int, live: bool = False) -> tuple[float, float | None, float | None]:
    """(seconds from c on the training screen to the comparison drawn, in a pty as a user runs it;
    ms for n (one step) to show before c, and during the comparison). ``live``: c is pressed just
    after space started a training run (no n then: the run's own steps move the count)."""
    app = PtyApp(cmd=[sys.executable, "-c", LAUNCH.format(steps=steps)])
    try:
        os.write(app.fd, b"L")
        if not _read_until(app, READY, 120):
            raise RuntimeError(f"the training screen never showed; the screen:\n{app.screen.text()}")
        _read_until(app, "\0", 1.0)  # its last frames (the loss chart drawn again at its size)
        idle = None if live else _answer_ms(app, b"n", "step 1/")
        t0 = time.perf_counter()
        os.write(app.fd, b" c" if live else b"c")
        busy = None
        if not live and _read_until(app, RUNNING, 120) and SHOWN not in app.screen.text():
            busy = _answer_ms(app, b"n", "step 2/")
        if not _read_until(app, SHOWN, 1800):
            raise RuntimeError("the app's comparison never showed its rows")
        return time.perf_counter() - t0, idle, busy
    finally:
        app.close()


def run(steps: int = compare.COMPARE_STEPS, repeats: int = 5) -> dict:
    """Medians over interleaved rounds of the three, with the load before and after."""
    load = os.getloadavg()
    times: dict[str, list[float]] = {"cli": [], "work": [], "app": [], "live": [], "key_idle": [], "key_busy": []}
    for _ in range(repeats):
        times["cli"].append(cli_s(steps))
        times["work"].append(work_s(steps))
        app, idle, busy = app_s(steps)
        times["app"].append(app)
        assert idle is not None  # app_s presses n before c when not live
        times["key_idle"].append(idle)
        if busy is not None:  # None: the comparison ended before n could be pressed (a few steps)
            times["key_busy"].append(busy)
        times["live"].append(app_s(steps, live=True)[0])
    med = {k: statistics.median(v) if v else math.nan for k, v in times.items()}
    return {
        "steps": steps,
        "repeats": repeats,
        "processes": min(cpus(), 2 * len(compare.DKS)),
        "load": (load, os.getloadavg()),
        "times": times,
        **{f"{k}_s": med[k] for k in ("cli", "work", "app", "live")},
        "key_idle_ms": med["key_idle"],
        "key_busy_ms": med["key_busy"],
        "ratio_cli": med["app"] / med["cli"],
        "ratio_work": med["app"] / med["work"],
        "ratio_live": med["live"] / med["cli"],
    }


def report(r: dict) -> list[str]:
    (a1, a5, _), (b1, b5, _) = r["load"]
    dks = ", ".join(map(str, compare.DKS))
    full = "" if r["steps"] == compare.COMPARE_STEPS else f" (reduced from the app's {compare.COMPARE_STEPS})"
    return [
        f"The training comparison (scaled and unscaled at d_k = {dks}, {r['steps']} steps{full}, seed 0), "
        f"{r['processes']} processes; medians of {r['repeats']} interleaved rounds; load {a1:.2f}/{a5:.2f} before, "
        f"{b1:.2f}/{b5:.2f} after:",
        f"  CLI `train --compare`, exec to exit   {r['cli_s']:7.2f} s",
        f"  its work (compare_all, no start-up)   {r['work_s']:7.2f} s",
        f"  app: c to the rows drawn (pty)        {r['app_s']:7.2f} s",
        f"  app: the same, c during a live run    {r['live_s']:7.2f} s",
        f"  app / CLI  {r['ratio_cli']:.2f}x   (goal <= {GOAL}x)     app / its work  {r['ratio_work']:.2f}x     "
        f"live / CLI  {r['ratio_live']:.2f}x",
        f"  n (one step) answered in {r['key_busy_ms']:.0f} ms during the comparison, "
        f"{r['key_idle_ms']:.0f} ms before it ({len(r['times']['key_busy'])} of {r['repeats']} rounds in time)",
    ]


def cli(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m attn_tui.bench --compare", description=__doc__.splitlines()[0])
    p.add_argument("--compare", action="store_true", help="this benchmark (the flag that chose it)")
    p.add_argument("--steps", type=int, default=compare.COMPARE_STEPS, help="steps of every run (default %(default)s)")
    p.add_argument("--repeats", type=int, default=5, help="interleaved rounds (medians)")
    a = p.parse_args(argv)
    print("\n".join(report(run(a.steps, a.repeats))))

"""Benchmark: `python -m attn_tui.bench` (not a timed test; its figures are in docs/PERFORMANCE.md).

Launch, exec to the first full screen against a bare Textual app (launch.py), CPU per keypress
and the first frame (cpu.py), bytes per keypress through a real pty (pty_bytes.py), each printed
with its floor, measured in the same run, and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

from ..core.scenario_io import dumps
from . import launch, pty_bytes
from .cpu import (  # noqa: F401
    REPAINTED,
    SIZE,
    T64_ROWS,
    BareRepaintApp,
    FloorLines,
    bare_repaint_app,
    plotext_build_ms,
    random_scenario,
    report,
    run,
)

BYTE_GOALS = {"startup": 60_000, "plus": 6_000, "jk": 5_000, "nochange": 200, "T64 plus": 8_000}


def run_bytes(presses: int = 5) -> dict:
    """pty_bytes.measure at T = 5 (the lesson, as `attn-tui` opens) and T = 64 (bench.random_scenario)."""
    out = {f"T5 {k}": v for k, v in pty_bytes.measure((), presses).items()}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "random64.toml")
        with open(path, "w") as f:
            f.write(dumps(random_scenario(64)))
        big = pty_bytes.measure(("--scenario", path), presses, rows=0, keys=("+",))
    out.update({f"T64 {k}": v for k, v in big.items()})
    return out


BARE = "from attn_tui.bench.cpu import bare_repaint_app; bare_repaint_app({rows})().run()"


def run_pty_cpu(presses: int = 20) -> dict:
    """CPU ms per `+`/`-` (alternating: c changes every press, the cell width never) in the app as a
    user runs it, over a key that changes nothing (`|`), at T = 5 and T = 64; the floor: the bare
    app's `+` over its unbound key, in a pty too, plus two plotext builds (measured here)."""
    out, plotext = {}, plotext_build_ms()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "random64.toml")
        with open(path, "w") as f:
            f.write(dumps(random_scenario(64)))
        for T, args, rows in ((5, (), 5), (64, ("--scenario", path), T64_ROWS)):
            app = pty_bytes.PtyApp(args)
            app.key("+")
            knob = statistics.fmean(app.cpu_ms_per_key(k, presses // 2) for k in "+-")
            none = app.cpu_ms_per_key("|", presses)
            app.close()
            bare = pty_bytes.PtyApp(cmd=[sys.executable, "-c", BARE.format(rows=rows)], ready="row0")
            bare.key("+")
            bump, idle = bare.cpu_ms_per_key("+", presses), bare.cpu_ms_per_key("|", presses)
            bare.close()
            floor = bump - idle + 2 * plotext
            out[T] = (knob - none, floor, (knob - none) / floor)
    return out


def pty_cpu_report(c: dict) -> list[str]:
    lines = ["CPU per keypress in a real pty, no Pilot (`+`/`-` over a key that changes nothing; floor: the bare app's"]
    lines.append("repaint over its unbound key, in a pty too, + two plotext builds):")
    for T, (ms, floor, ratio) in c.items():
        lines.append(f"  `+` at T={T:<3d} {ms:6.2f} ms   floor {floor:6.2f} ms   {ratio:.2f}x   (goal <= 1.5x)")
    return lines


def bytes_report(b: dict) -> list[str]:
    lines = [
        "Bytes written to a 120x40 pty (xterm-256color, truecolor), `python -m attn_tui` as a user starts it "
        "(floor: only the cells that changed, in Textual's encoding):"
    ]
    for name, (n, floor) in b.items():
        goal = BYTE_GOALS.get(name.removeprefix("T5 ")) if name.startswith("T5") else BYTE_GOALS.get(name)
        ratio = f"{n / floor:5.2f}x" if floor else "   - "
        lines.append(
            f"  {name:<16s} {n:7d} B   floor {floor:7d} B   {ratio}" + (f"   (goal <= {goal} B)" if goal else "")
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m attn_tui.bench", description=__doc__.splitlines()[0])
    p.add_argument("--presses", type=int, default=30, help="keypresses per CPU case")
    p.add_argument("--repeats", type=int, default=5, help="rounds of the CPU cases and of the launches (medians)")
    p.add_argument("--no-cpu", action="store_true", help="only the bytes through the pty")
    p.add_argument("--no-bytes", action="store_true", help="only CPU and the first frame")
    p.add_argument("--no-launch", action="store_true", help="without the launch against a bare app")
    p.add_argument("--launch", action="store_true", help="only the launch against a bare app")
    a = p.parse_args(argv)
    if not a.no_launch:
        print("\n".join(launch.report(launch.measure(a.repeats))), f"  ({launch.load()})", sep="\n", flush=True)
        if a.launch:
            return
    if not a.no_cpu:
        print("\n".join(report(run(a.presses, a.repeats))), flush=True)
    if not a.no_bytes:
        print("\n".join(pty_cpu_report(run_pty_cpu())), flush=True)
        print("\n".join(bytes_report(run_bytes())))

"""Benchmark: `python -m attn_tui.tui.bench` (not a timed test; its figures are in the README).

CPU per keypress and the first frame (cpu.py), bytes per keypress through a real pty
(pty_bytes.py), each printed with its floor, measured in the same run, and the ratio.
"""

from __future__ import annotations

import argparse
import os
import tempfile

from ...core.scenario_io import dumps
from . import pty_bytes
from .cpu import REPAINTED, SIZE, BareRepaintApp, _Lines, bare_repaint_app, random_scenario, report, run  # noqa: F401

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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m attn_tui.tui.bench", description=__doc__.splitlines()[0])
    p.add_argument("--presses", type=int, default=30, help="keypresses per CPU case")
    p.add_argument("--repeats", type=int, default=5, help="rounds of the CPU cases (medians)")
    p.add_argument("--no-cpu", action="store_true", help="only the bytes through the pty")
    p.add_argument("--no-bytes", action="store_true", help="only CPU and the first frame")
    a = p.parse_args(argv)
    if not a.no_cpu:
        print("\n".join(report(run(a.presses, a.repeats))), flush=True)
    if not a.no_bytes:
        print("\n".join(bytes_report(run_bytes())))

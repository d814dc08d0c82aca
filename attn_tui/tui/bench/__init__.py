"""Benchmark: `python -m attn_tui.tui.bench` (cpu.py: CPU per key and first frame; pty_bytes.py:
bytes per key through a real pty)."""

from .cpu import REPAINTED, SIZE, BareRepaintApp, _Lines, main, random_scenario, run  # noqa: F401

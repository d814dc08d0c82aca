"""scripts/bench_tokens.py runs at tiny sizes and prints every figure (a smoke test: no timing asserted)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.long
@pytest.mark.slow  # a pty and a headless app, a few seconds each
def test_the_token_bench_prints_its_figures():
    res = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_tokens.py"), "--T", "8", "--long", "600"]
        + ["--seeds", "1", "--presses", "2", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    out = res.stdout
    for figure in ("pipeline j/k: CPU per key", "token view j/k: bytes per key", "key T to the text drawn"):
        line = next(line for line in out.splitlines() if figure in line)
        assert float(line.split("median")[1].split()[0]) > 0, line  # measured, not a zero from a dead app
    assert "token view / pipeline: CPU" in out and "open / floor:" in out

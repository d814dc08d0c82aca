"""The training-comparison benchmark (bench/train_compare.py) at a few steps: every figure is
reported, the app's rows were seen on its screen in a pty (a smoke test: no timing asserted)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from attn_tui.bench import train_compare


@pytest.mark.long
@pytest.mark.slow  # a CLI run and two app runs in a pty
def test_the_bench_reports_the_app_and_the_cli_for_the_same_runs():
    r = train_compare.run(steps=5, repeats=1)
    assert r["steps"] == 5 and r["repeats"] == 1
    for key in ("cli_s", "work_s", "app_s", "live_s", "key_idle_ms"):
        assert math.isfinite(r[key]) and r[key] > 0, (key, r)
    assert len(r["times"]["key_busy"]) <= 1  # 5 steps may end before n is pressed
    assert r["ratio_cli"] == r["app_s"] / r["cli_s"] and r["ratio_live"] == r["live_s"] / r["cli_s"]
    lines = train_compare.report(r)
    assert "5 steps (reduced from the app's 1000)" in lines[0] and "load" in lines[0]
    assert lines[-2].startswith("  app / CLI ") and "(goal <= 1.3x)" in lines[-2]
    assert lines[-1].startswith("  n (one step) answered in ")


def test_the_launcher_sets_the_apps_steps():
    code = train_compare.LAUNCH.format(steps=7).replace("raise SystemExit(main([]))", "print(compare.COMPARE_STEPS)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "7"


def test_bench_main_dispatches_compare():
    out = subprocess.run(
        [sys.executable, "-m", "attn_tui.bench", "--compare", "--help"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and "--steps" in out.stdout and "--repeats" in out.stdout

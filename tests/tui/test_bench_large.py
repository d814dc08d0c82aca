"""The large-T benchmark runs at tiny sizes and reports every figure (a smoke test: no timing asserted)."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from attn_tui.bench import large
from attn_tui.core.scenario_io import load


def test_write_npz_opens_through_the_apps_door(tmp_path):
    path = large.write_npz(str(tmp_path / "r.npz"), 600, d=64, seed=3)
    s = load(path, large=True)
    assert (s.T, s.T_k, s.d_k, s.d_v, s.mask) == (600, 600, 64, 64, "causal")
    Q = np.random.default_rng(3).standard_normal((600, 64))  # the first array drawn
    np.testing.assert_array_equal(s.Q, Q)


@pytest.mark.slow  # the large bench's smoke run (600 tokens, a pty)
@pytest.mark.long  # the long lane (docs/TESTING.md)
def test_large_bench_reports_every_figure():
    r = large.run(sizes=(8, 600), presses=2, repeats=1, torch_T=128)
    assert [s["T"] for s in r["sizes"]] == [8, 600]
    for s in r["sizes"]:
        assert s["opened"], s  # the explorer's first screen was seen in the pty
        for key in ("open_s", "open_cpu_s", "plus_ms", "nochange_ms", "peak_rss_mib"):
            assert math.isfinite(s[key]) and s[key] > 0, (key, s)
        assert s["peak_rss_mib"] > 20  # a Python process with NumPy and Textual
    t = r["torch"]
    if t is not None:  # torch installed: the two agree, and the ratio is theirs
        assert t["T"] == 128 and t["max_diff"] < 1e-9
        assert t["ratio"] == t["ours_ms"] / t["torch_ms"] and t["threads"] >= 1
    lines = large.report(r)
    assert any("| 8 |" in line for line in lines) and any("| 600 |" in line for line in lines)
    assert any("T=600 / T=8" in line for line in lines)


def test_report_without_torch():
    size = {"T": 64, "open_s": 1.0, "open_cpu_s": 0.5, "plus_ms": 20.0, "nochange_ms": 2.0}
    lines = large.report({"torch": None, "sizes": [dict(size, peak_rss_mib=60.0, opened=True)]})
    assert "torch not installed" in lines[0]
    assert "| 64 | 1.00 s; 0.50 s | 20 ms | 2.0 ms | 60 MiB |" in lines[-1]


def test_bench_main_dispatches_large():
    out = subprocess.run(
        [sys.executable, "-m", "attn_tui.bench", "--large", "--help"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and "--sizes" in out.stdout and "--presses" in out.stdout

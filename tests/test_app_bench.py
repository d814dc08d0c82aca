"""The benchmark runs and reports every figure (a smoke test: timings are not asserted)."""

from __future__ import annotations

import math

from attn_tui import bench


def test_random_scenario_shapes():
    s = bench.random_scenario(64)
    assert (s.T, s.d_k, s.d_v) == (64, 8, 8)


def test_bench_reports_every_figure(capsys):
    r = bench.run(presses=2, repeats=1)
    for key in ("noop_ms", "floor_ms", "T5_ms", "T64_ms", "first_frame_one_widget_s",
                "first_frame_explorer_s", "first_frame_ratio"):
        assert math.isfinite(r[key])
    assert r["first_frame_explorer_s"] > 0 and r["first_frame_one_widget_s"] > 0

"""The benchmark runs and reports every figure (a smoke test: timings are not asserted)."""

from __future__ import annotations

import math

from attn_tui.tui import bench


def test_random_scenario_shapes():
    s = bench.random_scenario(64)
    assert (s.T, s.d_k, s.d_v) == (64, 8, 8)


def test_bench_reports_every_figure(capsys):
    r = bench.run(presses=2, repeats=1)
    for key in (
        "noop_ms",
        "floor_ms",
        "T5_ms",
        "T64_ms",
        "first_frame_one_widget_s",
        "first_frame_explorer_s",
        "first_frame_ratio",
        "bare_repaint_ms",
        "plotext_build_ms",
        "first_frame_bare_ratio",
    ):
        assert math.isfinite(r[key])
    assert r["first_frame_explorer_s"] > 0 and r["first_frame_one_widget_s"] > 0
    assert r["widgets"] >= 20  # the explorer's panes, counted from the running app


async def test_bare_repaint_app_repaints_every_widget():
    """The reference app's `+` really changes what its widgets draw."""
    app = bench.BareRepaintApp()
    async with app.run_test(size=bench.SIZE) as pilot:
        await pilot.pause()
        before = [w.render_line(1).text for w in app.query(bench._Lines)]
        await pilot.press("plus")
        after = [w.render_line(1).text for w in app.query(bench._Lines)]
    assert len(before) == bench.REPAINTED
    assert all(a != b for a, b in zip(after, before))

"""The benchmark runs and reports every figure with its floor (a smoke test: timings are not asserted)."""

from __future__ import annotations

import math

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from attn_tui import bench
from attn_tui.bench import pty_bytes


def test_random_scenario_shapes():
    s = bench.random_scenario(64)
    assert (s.T, s.d_k, s.d_v) == (64, 8, 8)


@pytest.mark.long
@pytest.mark.slow  # the bench's smoke run (first frames in a pty)
def test_bench_reports_every_figure():
    r = bench.run(presses=2, repeats=1)
    for T in (5, 64):
        for key in (f"T{T}_ms", f"T{T}_floor_ms", f"T{T}_ratio", f"T{T}_bare_repaint_ms"):
            assert math.isfinite(r[key])
        assert r[f"T{T}_floor_ms"] > r[f"T{T}_bare_repaint_ms"]  # two plotext builds on top
    assert r["first_frame_explorer_s"] > 0 and r["first_frame_bare_s"] > 0
    assert r["first_frame_ratio"] == r["first_frame_explorer_s"] / r["first_frame_bare_s"]
    assert r["widgets"] >= 20  # the explorer's panes, counted from the running app
    assert 0 < r["first_frame_textual_s"] and r["first_frame_textual_ratio"] > 0  # Textual's part of the frame
    lines = bench.report(r)
    assert any("T=5 " in line and "floor" in line for line in lines)
    assert any("T=64" in line and "floor" in line for line in lines)


async def test_bare_repaint_app_repaints_every_widget():
    """The reference app's `+` really changes what its widgets draw."""
    app = bench.BareRepaintApp()
    async with app.run_test(size=bench.SIZE) as pilot:
        await pilot.pause()
        before = [w.render_line(1).text for w in app.query(bench.FloorLines)]
        await pilot.press("plus")
        after = [w.render_line(1).text for w in app.query(bench.FloorLines)]
    assert len(before) == bench.REPAINTED
    assert all(a != b for a, b in zip(after, before))


def test_the_byte_floor_counts_only_the_changed_cells_in_textuals_encoding():
    """The emulator reads what Textual writes; the floor re-encodes only the cells that changed."""
    red = Style(color="#ff0000", bgcolor="#000000")
    console = Console(color_system="truecolor", force_terminal=True)
    screen = pty_bytes.Screen(10, 2)
    screen.feed(("\x1b[1;1H" + Strip([Segment("ab", red), Segment("cd")]).render(console)).encode())
    before = screen.snapshot()
    assert "".join(ch for ch, _ in before[0][:4]) == "abcd" and before[0][0][1] and not before[0][2][1]
    screen.feed(("\x1b[1;1H" + Strip([Segment("aX", red), Segment("cd")]).render(console)).encode())
    cells, floor = pty_bytes.changed_floor(before, screen.cells)
    assert cells == 1
    assert floor == len("\x1b[1;2H") + len(Strip([Segment("X", red)]).render(console))


def test_bytes_report_names_each_figure_its_floor_and_goal():
    lines = bench.bytes_report({"T5 plus": (7000, 3500), "T5 nochange": (0, 0), "T64 plus": (9000, 3000)})
    assert "7000 B" in lines[1] and "3500 B" in lines[1] and "2.00x" in lines[1] and "6000" in lines[1]
    assert "200" in lines[2] and "8000" in lines[3]


def test_pty_cpu_report_names_each_figure_its_floor_and_ratio():
    lines = bench.pty_cpu_report({5: (12.0, 6.0, 2.0), 64: (9.0, 6.0, 1.5)})
    assert "T=5 " in lines[2] and "12.00 ms" in lines[2] and "6.00 ms" in lines[2] and "2.00x" in lines[2]
    assert "T=64" in lines[3] and "1.50x" in lines[3]

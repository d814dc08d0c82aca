"""The benchmark's replay floor (bench/replay.py) shows the explorer's picture, and run() and
report() carry it: measured in the rounds like the other first frames, printed under them."""

from __future__ import annotations

from types import SimpleNamespace

from textual.geometry import Region
from textual.strip import Strip

from attn_tui import bench
from attn_tui.bench import cpu, replay
from attn_tui.tui.app import AttentionApp

SIZE = bench.SIZE


async def _screen(make) -> tuple[list[list], int]:
    """Every line of the screen as the compositor joins it (its segments: text and style), and how
    many widgets the screen shows besides itself."""
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        return [list(strip) for strip in compositor.render_strips()], len(compositor.visible_widgets) - 1


async def test_the_replay_shows_the_explorers_picture_cell_for_cell():
    parts = await replay.capture(AttentionApp, SIZE)
    explorer, shown = await _screen(AttentionApp)
    assert len(parts) == shown  # one part per widget on the screen, the screen left out
    replayed, replays = await _screen(replay.replay_app(parts))
    assert replayed == explorer and replays == shown
    # the comparison can tell: children painted before their parents are hidden by them
    assert (await _screen(replay.replay_app(parts[::-1])))[0] != explorer


def _fake_measures(monkeypatch, parts):
    """cpu.run's measurements replaced by fixed figures, so the test runs no benchmark: each app's
    first frame by its class name, the capture by ``parts``; returns the calls seen and the figures."""
    seen = {"capture": [], "replay": []}
    frames = {"ReplayApp": 0.020, "AttentionApp": 0.070, "BareWidgetsApp": 0.035}

    async def first_frame(make):
        name = getattr(make, "__name__", "")
        if name == "ReplayApp":
            seen["replay"].append([w.lines for w in make().compose()])
        return frames.get(name, 0.010)

    async def capture(make, size):
        seen["capture"].append((make, size))
        return parts

    async def figure(*args, **kw):
        return 1.0

    async def widgets(make):
        return 31

    monkeypatch.setattr(cpu, "_first_frame_s", first_frame)
    monkeypatch.setattr(cpu, "capture", capture)
    monkeypatch.setattr(cpu, "_cpu_ms_per_press", figure)
    monkeypatch.setattr(cpu, "textual_share_s", figure)
    monkeypatch.setattr(cpu, "_widget_count", widgets)
    monkeypatch.setattr(cpu, "plotext_build_ms", lambda: 0.5)
    monkeypatch.setattr(cpu, "gc", SimpleNamespace(collect=int, disable=int, enable=int))  # ~50 ms a collection
    return seen, frames


def test_run_measures_the_replay_of_one_capture_in_every_round(monkeypatch):
    region = Region(3, 4, 5, 1)
    parts = [replay.Painted(region, (Strip.blank(5),)), replay.Painted(region, (Strip.blank(5),) * 2)]
    seen, frames = _fake_measures(monkeypatch, parts)
    out = cpu.run(presses=1, repeats=3)
    assert seen["capture"] == [(AttentionApp, SIZE)]  # once, before the rounds
    assert seen["replay"] == [[p.lines for p in parts]] * 3  # one part per widget, in every round
    assert out["first_frame_replay_s"] == frames["ReplayApp"]
    assert out["first_frame_replay_widgets"] == len(parts)
    assert out["first_frame_replay_ratio"] == frames["ReplayApp"] / frames["BareWidgetsApp"]
    assert out["first_frame_over_replay"] == frames["AttentionApp"] / frames["ReplayApp"]
    # the least the picture takes: Textual's part (faked 1.0 s) and two plotext builds (0.5 ms each)
    assert out["first_frame_least_s"] == 1.0 + 2 * 0.5 / 1000
    assert out["first_frame_least_ratio"] == out["first_frame_least_s"] / frames["BareWidgetsApp"]


def test_report_prints_the_replay_under_the_first_frame_lines(monkeypatch):
    _fake_measures(monkeypatch, [])
    r = cpu.run(presses=1, repeats=1)
    r.update(first_frame_replay_s=0.023, first_frame_replay_widgets=28)
    r.update(first_frame_replay_ratio=0.8, first_frame_over_replay=2.7)
    lines = cpu.report(r)
    assert lines[-1] == (
        "  the same picture replayed (28 painted widgets as captured from the explorer, absolutely placed, "
        "nothing computed, no style sheet): 23 ms   0.80x the floor; the explorer is 2.70x it"
    )
    assert lines[-2].startswith("  that part and the chart's two plotext builds")
    assert lines[-3].startswith("  Textual's own part of the explorer's first frame")

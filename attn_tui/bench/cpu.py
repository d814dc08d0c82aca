"""Benchmark: `python -m attn_tui.bench` (not a timed test; figures go in the closing note).

1. CPU milliseconds per `+` keypress (Pilot, time.process_time, N presses, rendering
   included) for the explorer minus the same for a no-op Textual app, at T = 5 (the
   lesson) and T = 64 (a random Gaussian scenario). Targets: ≤ 5 ms and ≤ 10 ms.
2. Time to first frame (from constructing the app to its first composited frame,
   headless) of the explorer against a one-widget Textual app, as a ratio. Target: ≤ 1.5×.
3. Reference floors, measured in the same run, for judging those targets: a bare Textual
   app that repaints as many Line-API widgets per keypress as the explorer does on `+`
   (S, A, O, the entropies, the status line, the chart and its two plots), one plotext
   build of a chart-sized bar plot (`+` needs two), and the first frame of a bare app with
   as many plain widgets as the explorer has.
4. Floors that show what the targets leave out: the same repaint with as many widgets as the
   explorer (Pilot waits on every widget after each key), and a first frame with as many
   widgets, 12 of them Line-API grids of numbers, the explorer's style sheet and two plotext builds;
   and the explorer's own picture replayed (replay.py): as many painted widgets, nothing computed.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import statistics
import time
from pathlib import Path

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from ..core.scenario import Scenario
from ..tui.app import AttentionApp
from .first_frame import first_frame_lines, first_frame_s, textual_share_s
from .replay import capture, replay_app

SIZE = (120, 40)


class NoopApp(App):
    """One widget; `+` runs an action that does nothing."""

    BINDINGS = [("plus", "noop", "noop")]

    def compose(self):
        yield Static("no-op")

    def action_noop(self) -> None:
        pass


REPAINTED = 8  # widgets the explorer repaints on `+`: S, A, O, H, status, chart, its two plots
GROUNDS = [Style(color="#ffffff", bgcolor=f"#{40 + 20 * i:02x}2050") for i in range(10)]  # prebuilt, like a grid's


class FloorLines(Widget):
    """A grid pane's worth of numbers under a titled rule: ``rows`` lines of 5 cells, each cell its
    own coloured segment after a gap (as a MatrixGrid row is drawn)."""

    DEFAULT_CSS = "FloorLines { width: 1fr; border-top: solid $secondary; }"
    n = 0

    def __init__(self, rows: int = 5) -> None:
        super().__init__()
        self.rows = rows
        self.styles.height = rows + 2  # title rule, header, rows

    def render_line(self, y: int) -> Strip:
        segs = [Segment(f"row{y:<4d}")]
        for c in range(5):
            v = self.n + y + c
            segs += [Segment(" "), Segment(f"{v % 1000 / 100:5.3f}", GROUNDS[v % 10])]
        return Strip(segs)


IDLE_CSS = ".idle { height: 1; } .idle Static { width: 4; }"


def bare_repaint_app(rows: int = 5, widgets: int = 0, grids: int = REPAINTED) -> type[App]:
    """A bare app whose `+` changes and repaints ``grids`` Line-API grids of ``rows`` rows; with
    ``widgets``, idle Statics on a line below make up that many widgets in all (Pilot waits on
    every widget after each key: the explorer's count, for a floor with the same harness cost)."""

    class BareRepaintApp(App):
        BINDINGS = [("plus", "bump", "bump")]
        # Two lines of four grids, all on a 40-line screen at T = 64 too; grid-rows: a grid row is
        # not as tall as its widgets' height (they were 2 lines tall, one row of numbers, before)
        CSS = f"Grid {{ grid-size: 4; grid-rows: {rows + 2}; height: auto; }}" + IDLE_CSS

        def compose(self):
            with Grid():
                yield from (FloorLines(rows) for _ in range(grids))
            if widgets > grids + 2:  # the grid, the line and these
                with Horizontal(classes="idle"):
                    yield from (Static(f"w{i}") for i in range(widgets - grids - 2))

        def action_bump(self) -> None:
            for w in self.query(FloorLines):
                w.n += 1
                w.refresh()

    return BareRepaintApp


BareRepaintApp = bare_repaint_app(5)


def with_style_sheet(app: type[App]) -> type[App]:
    """``app`` with the explorer's style sheet (app.tcss: parsed, and applied to its widgets)."""
    return type(
        app.__name__, (app,), {"CSS_PATH": str(Path(inspect.getfile(AttentionApp)).parent / AttentionApp.CSS_PATH)}
    )


CONTENT_GRIDS = 12  # the grids the explorer shows at T = 5 (X, W_Q, W_K, W_V, Q, K, V, S, M, A, O, H)


def bare_widgets_app(n: int) -> type[App]:
    """An app class with ``n`` plain widgets (rows of three in a scrolling column), no logic."""

    class BareWidgetsApp(App):
        def compose(self):
            with VerticalScroll():
                for r in range(0, n, 3):
                    with Horizontal():
                        yield from (Static(f"w{i}") for i in range(r, min(n, r + 3)))

    return BareWidgetsApp


def plotext_build_ms(builds: int = 50) -> float:
    """CPU ms of one plotext build of a chart-sized (38×7) horizontal bar plot."""
    from ..tui.framework import new_figure
    from ..tui.widgets.bar_plot import plot_lines

    fig = new_figure()
    labels = [f"t{i}" for i in range(1, 6)]
    t0 = time.process_time()
    for k in range(builds):
        fig.clear_data()
        fig.title(f"A_t c={1.1**k:.2f}")
        fig.frame(False)
        fig.bar(labels, [0.1, 0.2, 0.3, 0.2, 0.2 + k * 1e-3], orientation="horizontal", width=0.3)
        plot_lines(fig, 38, 7)  # what the chart's BarPlot does
    return (time.process_time() - t0) * 1000 / builds


async def _widget_count(make) -> int:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return len(list(app.screen.walk_children()))


def random_scenario(T: int, d_model: int = 16, d_k: int = 8, d_v: int = 8, seed: int = 0) -> Scenario:
    """Gaussian X (T, d_model), W_Q, W_K (d_model, d_k), W_V (d_model, d_v)."""
    rng = np.random.default_rng(seed)
    return Scenario(
        title=f"random Gaussian T={T}",
        X=rng.normal(size=(T, d_model)),
        W_Q=rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        W_K=rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        W_V=rng.normal(size=(d_model, d_v)),
        mask="causal",
    )


async def _cpu_ms_per_press(make, presses: int, key: str = "plus") -> float:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(3):  # warm caches (plotext, styles)
            await pilot.press(key)
        await pilot.pause()
        t0 = time.process_time()
        for _ in range(presses):
            await pilot.press(key)
        await pilot.pause()
        return (time.process_time() - t0) * 1000 / presses


async def _first_frame_s(make) -> float:
    """CPU seconds from constructing the app to its first composited frame, headless at SIZE."""
    return await first_frame_s(make, SIZE)


def _quiet(case):
    """Run ``case`` (a coroutine function, or a plain one) with the garbage collector
    collected first and paused during it, as timeit does: a collection of the previous
    cases' garbage must not land in this case's figure."""
    gc.collect()
    gc.disable()
    try:
        result = case()
        return asyncio.run(result) if asyncio.iscoroutine(result) else result
    finally:
        gc.enable()


def run(presses: int = 30, repeats: int = 5) -> dict:
    """Every CPU figure, measured in this one run: medians over ``repeats`` rounds, each round
    measuring every case once (interleaved, so a machine that slows down mid-run slows
    every case, and the ratios hold)."""
    big = random_scenario(64)
    asyncio.run(_first_frame_s(AttentionApp))  # imports and first-use caches out of the way
    n_widgets = asyncio.run(_widget_count(AttentionApp))
    parts = asyncio.run(capture(AttentionApp, SIZE))  # the explorer's picture, once, for "ff_replay"
    cases = {
        "noop": lambda: _cpu_ms_per_press(NoopApp, presses),
        "lesson": lambda: _cpu_ms_per_press(AttentionApp, presses),
        "t64": lambda: _cpu_ms_per_press(lambda: AttentionApp(scenario=big), presses),
        "bare5": lambda: _cpu_ms_per_press(bare_repaint_app(5), presses),
        "bare64": lambda: _cpu_ms_per_press(bare_repaint_app(T64_ROWS), presses),
        "bare5n": lambda: _cpu_ms_per_press(bare_repaint_app(5, n_widgets), presses),
        "bare64n": lambda: _cpu_ms_per_press(bare_repaint_app(T64_ROWS, n_widgets), presses),
        "ff_one": lambda: _first_frame_s(NoopApp),
        "ff_app": lambda: _first_frame_s(AttentionApp),
        "ff_bare": lambda: _first_frame_s(bare_widgets_app(n_widgets)),
        "ff_content": lambda: _first_frame_s(with_style_sheet(bare_repaint_app(5, n_widgets, grids=CONTENT_GRIDS))),
        "ff_textual": lambda: textual_share_s(AttentionApp, SIZE),
        "ff_replay": lambda: _first_frame_s(replay_app(parts)),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    builds = []
    for _ in range(repeats):
        for name, case in cases.items():
            samples[name].append(_quiet(case))
        builds.append(_quiet(plotext_build_ms))
    m = {name: statistics.median(v) for name, v in samples.items()}
    return _figures(m, statistics.median(builds), n_widgets, len(parts))


def _figures(m: dict, plotext: float, n_widgets: int, n_parts: int) -> dict:
    """run's figures from the cases' medians ``m`` and plotext's build time: each against its floor."""
    noop = m["noop"]
    out = {"noop_ms": noop, "plotext_build_ms": plotext, "widgets": n_widgets}
    for T, key, bare in ((5, "lesson", "bare5"), (64, "t64", "bare64")):
        floor = m[bare] - noop + 2 * plotext
        out[f"T{T}_ms"], out[f"T{T}_floor_ms"] = m[key] - noop, floor
        out[f"T{T}_ratio"] = (m[key] - noop) / floor
        out[f"T{T}_bare_repaint_ms"] = m[bare] - noop
        same = m[f"{bare}n"] - noop + 2 * plotext  # the floor with as many widgets (Pilot's wait on each)
        out[f"T{T}_floor_n_ms"], out[f"T{T}_ratio_n"] = same, (m[key] - noop) / same
    out["first_frame_one_widget_s"], out["first_frame_explorer_s"] = m["ff_one"], m["ff_app"]
    out["first_frame_bare_s"] = m["ff_bare"]
    out["first_frame_ratio"] = m["ff_app"] / m["ff_bare"]
    out["first_frame_content_s"] = m["ff_content"] + 2 * plotext / 1000
    out["first_frame_content_ratio"] = m["ff_app"] / out["first_frame_content_s"]
    out["first_frame_textual_s"] = m["ff_textual"]
    out["first_frame_textual_ratio"] = m["ff_textual"] / m["ff_bare"]
    out["first_frame_least_s"] = m["ff_textual"] + 2 * plotext / 1000  # and the chart's two plotext builds
    out["first_frame_least_ratio"] = out["first_frame_least_s"] / m["ff_bare"]
    out["first_frame_replay_s"], out["first_frame_replay_widgets"] = m["ff_replay"], n_parts
    out["first_frame_replay_ratio"] = m["ff_replay"] / m["ff_bare"]
    out["first_frame_over_replay"] = m["ff_app"] / m["ff_replay"]
    return out


T64_ROWS = 12  # rows a T = 64 grid shows (its max-height less the title and the header)
GOALS = {"cpu": 1.5, "first_frame": 1.5}


def report(r: dict) -> list[str]:
    """The CPU and first-frame lines: each figure, its floor and the ratio."""
    lines = [
        "CPU per keypress, minus a no-op app (floor: a bare app repainting "
        f"{REPAINTED} Line-API grids + two plotext builds of {r['plotext_build_ms']:.2f} ms):"
    ]
    for T in (5, 64):
        lines.append(
            f"  `+` at T={T:<3d} {r[f'T{T}_ms']:6.2f} ms   floor {r[f'T{T}_floor_ms']:6.2f} ms "
            f"(grids {r[f'T{T}_bare_repaint_ms']:.2f})   {r[f'T{T}_ratio']:.2f}x   (goal <= {GOALS['cpu']}x)"
        )
    lines.append(
        f"  the same floor with as many widgets as the explorer ({r['widgets']}; Pilot waits on each after a key):"
    )
    for T in (5, 64):
        lines.append(
            f"  `+` at T={T:<3d} {r[f'T{T}_ms']:6.2f} ms   floor {r[f'T{T}_floor_n_ms']:6.2f} ms "
            f"{'':>13s}   {r[f'T{T}_ratio_n']:.2f}x   (goal <= {GOALS['cpu']}x)"
        )
    return lines + first_frame_lines(r, GOALS["first_frame"], CONTENT_GRIDS)

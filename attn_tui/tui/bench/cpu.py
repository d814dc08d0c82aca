"""Benchmark: `python -m attn_tui.tui.bench` (not a timed test; figures go in the closing note).

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
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

import numpy as np
from rich.segment import Segment
from textual.app import App
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from ...core.scenario import Scenario
from ..app import AttentionApp
from ..framework import on_first_frame

SIZE = (120, 40)


class NoopApp(App):
    """One widget; `+` runs an action that does nothing."""

    BINDINGS = [("plus", "noop", "noop")]

    def compose(self):
        yield Static("no-op")

    def action_noop(self) -> None:
        pass


REPAINTED = 8  # widgets the explorer repaints on `+`: S, A, O, H, status, chart, its two plots


class _Lines(Widget):
    """Seven lines of numbers under a titled rule, like a 5×5 grid pane."""

    DEFAULT_CSS = "_Lines { height: 7; width: 1fr; border-top: solid $secondary; }"
    n = 0

    def render_line(self, y: int) -> Strip:
        return Strip([Segment(" ".join(f"{self.n + y + c:5d}" for c in range(5)))])


class BareRepaintApp(App):
    """A bare app whose `+` changes and repaints REPAINTED Line-API widgets."""

    BINDINGS = [("plus", "bump", "bump")]
    CSS = "Grid { grid-size: 3; height: auto; }"

    def compose(self):
        with Grid():
            yield from (_Lines() for _ in range(REPAINTED))

    def action_bump(self) -> None:
        for w in self.query(_Lines):
            w.n += 1
            w.refresh()


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
    from ..framework import new_figure
    from ..widgets.bar_plot import plot_lines

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
    """Seconds from constructing the app to its first composited frame (headless)."""
    t0 = time.perf_counter()
    app = make()
    first: list[float] = []
    on_first_frame(app, lambda: first.append(time.perf_counter()))
    async with app.run_test(size=SIZE) as pilot:
        while not first:
            await pilot.pause(0.005)
    return first[0] - t0


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
    """Every figure, measured in this one run: medians over ``repeats`` rounds, each round
    measuring every case once (interleaved, so a machine that slows down mid-run slows
    every case, and the ratios hold)."""
    big = random_scenario(64)
    asyncio.run(_first_frame_s(AttentionApp))  # imports and first-use caches out of the way
    n_widgets = asyncio.run(_widget_count(AttentionApp))
    cases = {
        "noop": lambda: _cpu_ms_per_press(NoopApp, presses),
        "lesson": lambda: _cpu_ms_per_press(AttentionApp, presses),
        # The floor: the same explorer and an unbound key (Pilot's per-widget work, no state change).
        "floor": lambda: _cpu_ms_per_press(AttentionApp, presses, key="f12"),
        "t64": lambda: _cpu_ms_per_press(lambda: AttentionApp(scenario=big), presses),
        "bare": lambda: _cpu_ms_per_press(BareRepaintApp, presses),
        "ff_one": lambda: _first_frame_s(NoopApp),
        "ff_app": lambda: _first_frame_s(AttentionApp),
        "ff_bare": lambda: _first_frame_s(bare_widgets_app(n_widgets)),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    builds = []
    for _ in range(repeats):
        for name, case in cases.items():
            samples[name].append(_quiet(case))
        builds.append(_quiet(plotext_build_ms))
    m = {name: statistics.median(v) for name, v in samples.items()}
    noop = m["noop"]
    return {
        "noop_ms": noop,
        "floor_ms": m["floor"] - noop,
        "T5_ms": m["lesson"] - noop,
        "T64_ms": m["t64"] - noop,
        "first_frame_one_widget_s": m["ff_one"],
        "first_frame_explorer_s": m["ff_app"],
        "first_frame_ratio": m["ff_app"] / m["ff_one"],
        "bare_repaint_ms": m["bare"] - noop,
        "plotext_build_ms": statistics.median(builds),
        "widgets": n_widgets,
        "first_frame_bare_ratio": m["ff_bare"] / m["ff_one"],
    }


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m attn_tui.tui.bench", description=__doc__.splitlines()[0])
    p.add_argument("--presses", type=int, default=30)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args(argv)
    r = run(a.presses, a.repeats)
    print(f"no-op app:            {r['noop_ms']:.2f} ms CPU per keypress (subtracted below)")
    print(f"unbound key, explorer: {r['floor_ms']:.2f} ms CPU per keypress (Pilot and the DOM, nothing redrawn)")
    print(f"`+` at T=5  (lesson): {r['T5_ms']:.2f} ms CPU per keypress   (target <= 5)")
    print(f"`+` at T=64 (random): {r['T64_ms']:.2f} ms CPU per keypress   (target <= 10)")
    print(
        f"first frame: explorer {r['first_frame_explorer_s'] * 1000:.0f} ms vs one-widget app "
        f"{r['first_frame_one_widget_s'] * 1000:.0f} ms = {r['first_frame_ratio']:.2f}x   (target <= 1.5x)"
    )
    print("reference floors (same run):")
    print(
        f"  bare app repainting {REPAINTED} Line-API widgets per keypress: {r['bare_repaint_ms']:.2f} ms CPU "
        f"(minus the no-op app)"
    )
    print(f"  one plotext build of a chart-sized bar plot: {r['plotext_build_ms']:.2f} ms CPU (`+` draws two)")
    print(
        f"  first frame of a bare app with {r['widgets']} plain widgets (as many as the explorer): "
        f"{r['first_frame_bare_ratio']:.2f}x the one-widget app"
    )


if __name__ == "__main__":
    main()

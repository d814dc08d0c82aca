"""Benchmark: `python -m attn_tui.bench` (not a timed test; figures go in the closing note).

1. CPU milliseconds per `+` keypress (Pilot, time.process_time, N presses, rendering
   included) for the explorer minus the same for a no-op Textual app, at T = 5 (the
   lesson) and T = 64 (a random Gaussian scenario). Targets: ≤ 5 ms and ≤ 10 ms.
2. Time to first frame (from constructing the app to its first composited frame,
   headless) of the explorer against a one-widget Textual app, as a ratio. Target: ≤ 1.5×.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import numpy as np
from textual.app import App
from textual.widgets import Static

from .app import AttentionApp
from .core.scenario import Scenario

SIZE = (120, 40)


class NoopApp(App):
    """One widget; `+` runs an action that does nothing."""

    BINDINGS = [("plus", "noop", "noop")]

    def compose(self):
        yield Static("no-op")

    def action_noop(self) -> None:
        pass


def random_scenario(T: int, d_model: int = 16, d_k: int = 8, d_v: int = 8, seed: int = 0) -> Scenario:
    """Gaussian X (T, d_model), W_Q, W_K (d_model, d_k), W_V (d_model, d_v)."""
    rng = np.random.default_rng(seed)
    return Scenario(
        title=f"random Gaussian T={T}", X=rng.normal(size=(T, d_model)),
        W_Q=rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        W_K=rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        W_V=rng.normal(size=(d_model, d_v)), mask="causal",
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
    display = app._display

    def timed_display(screen, renderable):
        if renderable is not None and not first:
            first.append(time.perf_counter())
        return display(screen, renderable)

    app._display = timed_display
    async with app.run_test(size=SIZE) as pilot:
        while not first:
            await pilot.pause(0.005)
    return first[0] - t0


def run(presses: int = 30, repeats: int = 5) -> dict:
    """Every figure, measured in this one run (medians over ``repeats``)."""
    def median(coro_fn):
        return statistics.median(asyncio.run(coro_fn()) for _ in range(repeats))

    noop = median(lambda: _cpu_ms_per_press(NoopApp, presses))
    lesson = median(lambda: _cpu_ms_per_press(AttentionApp, presses))
    # The floor: the same explorer and an unbound key (Pilot's per-widget work, no state change).
    floor = median(lambda: _cpu_ms_per_press(AttentionApp, presses, key="f12"))
    big = random_scenario(64)
    t64 = median(lambda: _cpu_ms_per_press(lambda: AttentionApp(scenario=big), presses))
    asyncio.run(_first_frame_s(AttentionApp))  # imports and first-use caches out of the way
    ff_one = median(lambda: _first_frame_s(NoopApp))
    ff_app = median(lambda: _first_frame_s(AttentionApp))
    return {"noop_ms": noop, "floor_ms": floor - noop, "T5_ms": lesson - noop, "T64_ms": t64 - noop,
            "first_frame_one_widget_s": ff_one, "first_frame_explorer_s": ff_app, "first_frame_ratio": ff_app / ff_one}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m attn_tui.bench", description=__doc__.splitlines()[0])
    p.add_argument("--presses", type=int, default=30)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args(argv)
    r = run(a.presses, a.repeats)
    print(f"no-op app:            {r['noop_ms']:.2f} ms CPU per keypress (subtracted below)")
    print(f"unbound key, explorer: {r['floor_ms']:.2f} ms CPU per keypress (Pilot and the DOM, nothing redrawn)")
    print(f"`+` at T=5  (lesson): {r['T5_ms']:.2f} ms CPU per keypress   (target <= 5)")
    print(f"`+` at T=64 (random): {r['T64_ms']:.2f} ms CPU per keypress   (target <= 10)")
    print(f"first frame: explorer {r['first_frame_explorer_s'] * 1000:.0f} ms vs one-widget app "
          f"{r['first_frame_one_widget_s'] * 1000:.0f} ms = {r['first_frame_ratio']:.2f}x   (target <= 1.5x)")


if __name__ == "__main__":
    main()

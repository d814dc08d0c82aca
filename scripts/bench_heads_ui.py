"""The heads UI's two costs (issue 28), printed, never asserted:

    PYTHONPATH=. python scripts/bench_heads_ui.py [--T 512] [--heads 12] [--repeat 9]

1. Moving to the next head against a `+` at the same T: State.step_head(1).trace against
   State.scale_by(1.1).trace (each a new Scenario and its whole trace, what the pipeline draws),
   timed interleaved on a random float32 file of 2 layers x H heads (d = 64, with W_O).
2. The heads screen for one layer of H heads of T: core.heads.layer_view + combine (the worker's
   work), and the whole screen from the key `h` to the tiles drawn in a headless app at 120 x 40.
Medians and spread (min-max) of ``--repeat`` runs; one BLAS thread, as the explorer runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from attn_tui.core.heads import combine
from attn_tui.core.heads.layer_view import layer_view
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.tui import heads_nav
from attn_tui.tui import state as state_module
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.state import State


def _ms(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def _say(what: str, xs: list[float]) -> float:
    med = statistics.median(xs)
    print(f"  {what:<44} median {med:8.1f} ms   ({min(xs):.1f}-{max(xs):.1f}, n={len(xs)})")
    return med


def _forget() -> None:
    """No head's Scenario made and no trace kept but the state's own (each timed move starts cold)."""
    heads_nav._READY.clear()
    with state_module._LOCK:
        state_module._TRACES.clear()


def bench_move(path: str, repeat: int) -> None:
    s, ref = open_ref(path)
    st = State.opening(s, ref)
    st.trace  # noqa: B018  (the state shown before the key; kept on the State itself)
    cold, warm, pluses = [], [], []
    for _ in range(repeat):  # interleaved: the shared machine's load falls on both alike
        _forget()
        cold.append(_ms(lambda: st.step_head(1).trace))
        _forget()
        heads_nav.prefetch(st.head)  # what the app's worker does after each move, before the next key
        warm.append(_ms(lambda: st.step_head(1).trace))
        pluses.append(_ms(lambda: st.scale_by(1.1).trace))
    c = _say("next head, cold (head_scenario + trace)", cold)
    w = _say("next head, neighbours prefetched (the app)", warm)
    p = _say("+ (c x 1.1: new scenario + trace)", pluses)
    print(f"  ratio next head / +: cold {c / p:.2f}, as the app runs it {w / p:.2f}")


async def _screen_once(path: str) -> tuple[float, float]:
    """(ms from the key h to the tiles handed to their widget, ms until the test pilot, waiting in
    5 ms steps, sees them: it also waits for the frame, while the combine still runs in the worker)."""
    from attn_tui.tui.app import AttentionApp
    from attn_tui.tui.screens.heads import HeadsScreen

    drawn: list[float] = []
    draw = HeadsScreen._draw

    def timed(self, *a):
        draw(self, *a)
        drawn.append(time.perf_counter())

    HeadsScreen._draw = timed
    try:
        s, ref = open_ref(path)
        app = AttentionApp(scenario=s, head=ref)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()  # the neighbours' prefetch
            t0 = time.perf_counter()
            await pilot.press("h")
            while not (isinstance(app.screen, HeadsScreen) and app.screen.query_one("#head-tiles").tiles):
                await pilot.pause(0.005)
            seen = time.perf_counter()
    finally:
        HeadsScreen._draw = draw
    return (drawn[0] - t0) * 1e3, (seen - t0) * 1e3


def bench_screen(path: str, repeat: int, n: int) -> None:
    s, ref = open_ref(path)
    src = ref.source
    _say(
        f"layer_view + combine ({src.n_heads} heads, T={src.T})",
        [_ms(lambda: (layer_view(src, 0, n), combine(src, 0))) for _ in range(repeat)],
    )
    runs = [asyncio.run(_screen_once(path)) for _ in range(max(3, repeat // 3))]
    _say("heads screen: key h to the tiles drawn (120x40)", [a for a, _ in runs])
    _say("  ... and seen by the test pilot", [b for _, b in runs])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--T", type=int, default=512)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--repeat", type=int, default=9)
    a = p.parse_args()
    threadpool_limits(1, user_api="blas")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "heads.safetensors")
        L, H, d = 2, a.heads, 64
        Q, K, V = (rng.standard_normal((L, H, a.T, d), dtype=np.float32) for _ in range(3))
        W_O = rng.standard_normal((L, H * d, 256), dtype=np.float32) / 16
        save_heads(path, Q * 0.5, K, V, W_O=W_O, tokens=[f"w{i % 97}" for i in range(a.T)], mask="causal")
        print(f"random float32 file: 2 layers x {H} heads, T = {a.T}, d = {d}, W_O to 256")
        bench_move(path, a.repeat)
        bench_screen(path, a.repeat, n=8)


if __name__ == "__main__":
    main()

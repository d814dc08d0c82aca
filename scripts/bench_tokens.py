"""The token view's costs (issue 39), printed, never asserted:

    PYTHONPATH=. python scripts/bench_tokens.py [--seeds 3] [--presses 10] [--T 64] [--long 4096]

1. A query move in the token view (`j`/`k` after `T`) against `j`/`k` on the pipeline, in the same
   explorer at T = 64 (a random Gaussian scenario per seed): the app's CPU milliseconds per key and
   the bytes it writes to the terminal per key, in a real pty at 120x40 (attn_tui/bench/pty_bytes.py:
   each key read until the app falls quiet). The ratio token view / pipeline is the figure.
2. The token view opened on a 4,096-token multi-head file (float32, 2 heads, d = 64): wall time from
   the key `T` to the text drawn, in a headless app at 120x40, against `p` back to the pipeline (a
   screen the app already holds) as the floor of a screen switch.
Medians over the seeds (and runs), with min-max.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from attn_tui.bench.pty_bytes import PtyApp
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.random_scenario import random_scenario
from attn_tui.core.scenario_io import save


def _say(what: str, xs: list[float], unit: str) -> float:
    med = statistics.median(xs)
    print(f"  {what:<52} median {med:9.1f} {unit}  ({min(xs):.1f}-{max(xs):.1f}, n={len(xs)})")
    return med


def _moves(app: PtyApp, presses: int) -> tuple[float, float]:
    """(CPU ms per key, bytes per key) of j/k alternately, each read until the app is quiet."""
    t0, sizes = app.cpu_ns(), []
    for i in range(presses):
        sizes.append(app.key("j" if i % 2 == 0 else "k")[0])
    return (app.cpu_ns() - t0) / 1e6 / presses, statistics.median(sizes)


def bench_moves(T: int, seeds: int, presses: int) -> None:
    cpu = {"pipeline": [], "tokens": []}
    out = {"pipeline": [], "tokens": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(seeds):
            path = Path(tmp) / f"r{seed}.toml"
            save(random_scenario(T=T, d_model=16, d_k=8, d_v=8, seed=seed), path, overwrite=True)
            app = PtyApp(["--scenario", str(path)])
            try:
                app.key("j")  # the first move warms what any move reads
                c, b = _moves(app, presses)
                cpu["pipeline"].append(c)
                out["pipeline"].append(b)
                app.key("T")
                app.key("j")
                c, b = _moves(app, presses)
                cpu["tokens"].append(c)
                out["tokens"].append(b)
            finally:
                app.close()
    print(f"a query move at T = {T} (random scenario, {seeds} seeds x {presses} presses, pty 120x40):")
    p = _say("pipeline j/k: CPU per key", cpu["pipeline"], "ms")
    t = _say("token view j/k: CPU per key", cpu["tokens"], "ms")
    pb = _say("pipeline j/k: bytes per key", out["pipeline"], "B ")
    tb = _say("token view j/k: bytes per key", out["tokens"], "B ")
    print(f"  token view / pipeline: CPU {t / p:.2f}x, bytes {tb / pb:.2f}x")


async def _open_once(path: str) -> tuple[float, float]:
    from attn_tui.tui.app import AttentionApp
    from attn_tui.tui.heads_nav import open_ref
    from attn_tui.tui.screens.pipeline import PipelineScreen
    from attn_tui.tui.screens.tokens import TokensScreen
    from attn_tui.tui.widgets.token_text import TokenText

    s, ref = open_ref(path)
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        t0 = time.perf_counter()
        await pilot.press("T")
        while not (isinstance(app.screen, TokensScreen) and len(app.screen.query_one(TokenText).texts) == s.T):
            await pilot.pause(0.005)
        opened = time.perf_counter() - t0
        t0 = time.perf_counter()
        await pilot.press("p")
        while not isinstance(app.screen, PipelineScreen):
            await pilot.pause(0.005)
        back = time.perf_counter() - t0
    return opened * 1e3, back * 1e3


def bench_open(T: int, runs: int) -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "long.safetensors")
        Q, K, V = (rng.standard_normal((1, 2, T, 64), dtype=np.float32) for _ in range(3))
        save_heads(path, Q * 0.5, K, V, tokens=[f"w{i % 97}" for i in range(T)], mask="causal")
        times = [asyncio.run(_open_once(path)) for _ in range(runs)]
    print(f"the token view opened on a {T}-token file (float32, 2 heads, d = 64; headless 120x40, {runs} runs):")
    o = _say("key T to the text drawn", [a for a, _ in times], "ms")
    b = _say("floor: key p back to the pipeline", [b for _, b in times], "ms")
    print(f"  open / floor: {o / b:.2f}x")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--T", type=int, default=64)
    p.add_argument("--long", type=int, default=4096)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--presses", type=int, default=10)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    bench_moves(a.T, a.seeds, a.presses)
    bench_open(a.long, a.runs)


if __name__ == "__main__":
    main()

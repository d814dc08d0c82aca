"""Opening a multi-head file against a single-head one (docs/HEADS.md).

    PYTHONPATH=. python scripts/bench_heads_open.py [--T 2048] [--layers 12] [--heads 12] [--repeat 7]

Writes random float32 files into a temporary folder: one head (Q, K, V of T x 64, np.savez) and
L x H heads ([L, H, T, 64], both .npz and .safetensors), then times, interleaved, what the
explorer and `report` do to open them: scenario_io.resolve(single) against
admit(head_scenario(open_file(multi), L-1, H-1)) (the last head: the farthest read). Prints the
median and the spread (min-max) of each, and the ratio of medians; also the bytes each read.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from attn_tui.core.heads.multihead_io import open_file
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.source import head_scenario
from attn_tui.core.limits import admit
from attn_tui.core.scenario_io import resolve


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--T", type=int, default=2048)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        single = Path(tmp) / "single.npz"
        np.savez(single, **{k: rng.standard_normal((a.T, 64), dtype=np.float32) for k in "QKV"})
        shape = (a.layers, a.heads, a.T, 64)
        multi = {k: rng.standard_normal(shape, dtype=np.float32) for k in "QKV"}
        paths = [save_heads(Path(tmp) / f"multi.{s}", **multi) for s in ("npz", "safetensors")]
        del multi
        runs = {"single": [], **{p.name: [] for p in paths}}
        sizes = {}
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            resolve(str(single), large=True)
            runs["single"].append(time.perf_counter() - t0)
            for path in paths:
                t0 = time.perf_counter()
                src = open_file(path)
                admit(head_scenario(src, a.layers - 1, a.heads - 1), large=True)
                runs[path.name].append(time.perf_counter() - t0)
                sizes[path.name] = (path.stat().st_size, src.read.bytes_read)
        base = statistics.median(runs["single"])
        print(f"T = {a.T}, d = 64, float32; {a.layers} layers x {a.heads} heads; median (min-max) of {a.repeat}")
        print(
            f"single head ({single.stat().st_size / 2**20:.1f} MiB, read whole): {base * 1e3:.0f} ms "
            f"({min(runs['single']) * 1e3:.0f}-{max(runs['single']) * 1e3:.0f})"
        )
        for name, (size, read) in sizes.items():
            med = statistics.median(runs[name])
            print(
                f"{name} ({size / 2**20:.0f} MiB, {read / 2**20:.2f} MiB read): {med * 1e3:.0f} ms "
                f"({min(runs[name]) * 1e3:.0f}-{max(runs[name]) * 1e3:.0f}), {med / base:.2f}x the single head"
            )


if __name__ == "__main__":
    main()

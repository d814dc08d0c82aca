"""Large T: `python -m attn_tui.bench --large` (figures in docs/LARGE_T.md).

1. The core's full ``attention()`` (every T×T intermediate kept) against torch's CPU
   ``scaled_dot_product_attention`` at T = 2048, d = 64, float64, causal: the same thread
   count, a warm-up, then best of N, the two interleaved; the ratio and max |ΔO|.
2. For each T: random Q, K, V of T × 64 saved with ``np.savez`` and opened as a user does,
   ``python -m attn_tui --scenario FILE.npz`` in a 120×40 pty: the wall time to the first
   screen, CPU ms per `+` (all the app's threads, each press read until the app falls quiet)
   and the process's peak RSS (VmHWM in /proc) after the presses.
3. `report` on a T = 16384 float32 causal file against a plain NumPy pass over the same work,
   end to end and in process (report_large.py; `--report` runs this one alone).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from ..core.attention import attention, causal_mask
from . import report_large
from .pty_bytes import QUIET, PtyApp

SIZES = (64, 1024, 4096, 16384)
GOAL_TORCH = 1.5


def attention_vs_torch(T: int = 2048, d: int = 64, repeats: int = 7) -> dict | None:
    """Best-of-``repeats`` ms of attention() and of torch's SDPA (None without torch)."""
    try:
        import torch
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((T, d)) for _ in range(3))
    M = causal_mask(T)
    tq = [torch.from_numpy(a)[None] for a in (Q, K, V)]

    def ours():
        return attention(Q, K, V, mask=M).O

    def theirs():
        return torch.nn.functional.scaled_dot_product_attention(*tq, is_causal=True)[0].numpy()

    diff = float(np.max(np.abs(ours() - theirs())))  # also the warm-up
    best = {"ours": float("inf"), "torch": float("inf")}
    for _ in range(repeats):
        for name, f in (("ours", ours), ("torch", theirs)):
            t0 = time.perf_counter()
            f()
            best[name] = min(best[name], time.perf_counter() - t0)
    return {
        "T": T,
        "d": d,
        "threads": torch.get_num_threads(),
        "ours_ms": best["ours"] * 1000,
        "torch_ms": best["torch"] * 1000,
        "ratio": best["ours"] / best["torch"],
        "max_diff": diff,
    }


def write_npz(path: str, T: int, d: int = 64, seed: int = 0) -> str:
    """Random Q, K, V of T × d (float64) and a causal mask setting, as docs/LARGE_T.md's example."""
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.standard_normal((T, d)) for _ in range(3))
    np.savez(path, Q=Q, K=K, V=V, mask=np.array("causal"))
    return path


def peak_rss_mib(pid: int) -> float:
    """VmHWM of a live process, MiB (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise OSError(f"/proc/{pid}/status has no VmHWM")


def measure(T: int, presses: int = 10, d: int = 64) -> dict:
    """Open a random T × d file in the explorer (a pty) and press `+` ``presses`` times."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_npz(os.path.join(tmp, f"random{T}.npz"), T, d)
        t0 = time.perf_counter()
        app = PtyApp(("--scenario", path))
        open_s = time.perf_counter() - t0 - QUIET  # the drain ends QUIET s after the last byte
        try:
            open_cpu_s = app.cpu_ns() / 1e9
            app.key("+")  # the first press warms the tiles and caches
            plus = app.cpu_ms_per_key("+", presses)
            same = app.cpu_ms_per_key("|", presses)  # a key bound to nothing: the pty's floor
            rss = peak_rss_mib(app.proc.pid)
            shown = app.screen.text()
        finally:
            app.close()
    return {
        "T": T,
        "open_s": open_s,
        "open_cpu_s": open_cpu_s,
        "plus_ms": plus,
        "nochange_ms": same,
        "peak_rss_mib": rss,
        "opened": "palette" in shown,
    }


def run(sizes=SIZES, presses: int = 10, repeats: int = 7, torch_T: int = 2048) -> dict:
    return {"torch": attention_vs_torch(torch_T, repeats=repeats), "sizes": [measure(T, presses) for T in sizes]}


def report(r: dict) -> list[str]:
    t = r["torch"]
    if t is None:
        lines = ["attention() vs torch: torch not installed (pip install -e '.[oracle]')"]
    else:
        lines = [
            f"attention() (full trace) vs torch's scaled_dot_product_attention, T={t['T']}, d={t['d']}, float64, "
            f"causal, {t['threads']} threads, best of N interleaved:",
            f"  ours {t['ours_ms']:7.1f} ms   torch {t['torch_ms']:7.1f} ms   {t['ratio']:.2f}x "
            f"(goal <= {GOAL_TORCH}x)   max |dO| {t['max_diff']:.1e}",
        ]
    lines.append(
        "Explorer on a random T x 64 .npz (causal, float64), `python -m attn_tui --scenario FILE`, 120x40 pty:"
    )
    lines.append("  | T | first screen (wall; CPU) | CPU per `+` | a key that changes nothing | peak RSS |")
    lines.append("  |---|---|---|---|---|")
    for s in r["sizes"]:
        warn = "" if s["opened"] else " (first screen not seen!)"
        lines.append(
            f"  | {s['T']} | {s['open_s']:.2f} s; {s['open_cpu_s']:.2f} s | {s['plus_ms']:.0f} ms "
            f"| {s['nochange_ms']:.1f} ms | {s['peak_rss_mib']:.0f} MiB |{warn}"
        )
    base = r["sizes"][0]
    for s in r["sizes"][1:]:
        lines.append(
            f"  T={s['T']} / T={base['T']}: first screen {s['open_s'] / base['open_s']:.2f}x (goal <= 3x), "
            f"`+` {s['plus_ms'] / base['plus_ms']:.2f}x (goal <= 2x)"
        )
    return lines


def cli(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m attn_tui.bench --large", description=__doc__.splitlines()[0])
    p.add_argument("--large", action="store_true", help="this benchmark (the default one without it)")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="token counts T, comma-separated")
    p.add_argument("--presses", type=int, default=10, help="`+` presses per size")
    p.add_argument("--repeats", type=int, default=7, help="rounds of attention() vs torch (best of)")
    p.add_argument("--report", action="store_true", help="only `report` against plain NumPy (report_large.py)")
    p.add_argument("--report-T", type=int, default=report_large.T_REPORT, help="tokens of the `report` case")
    p.add_argument("--report-runs", type=int, default=5, help="interleaved runs of the `report` case (medians)")
    a = p.parse_args(argv)
    if not a.report:
        sizes = [int(t) for t in a.sizes.split(",")]
        print("\n".join(report(run(sizes, a.presses, a.repeats))), flush=True)
    print("\n".join(report_large.report(report_large.run(a.report_T, a.report_runs))), flush=True)

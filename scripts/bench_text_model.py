"""text-demo's speed (issue 49: tokenize + forward <= 100 ms at 128 tokens; docs/PERFORMANCE.md).

    PYTHONPATH=. python scripts/bench_text_model.py [--repeat 21] [--T 128 256 512 1024]

Figures printed, never asserted. On one BLAS thread, as the explorer runs NumPy (cli/blas_limit.py).
For each T: the text's tokens (the tokenizer on an English text cut to T tokens) and the forward
(core/models/text.py: every layer's Q, K, V, A, each head's output, the logits), then the whole of
what `i` runs in its worker (heads_nav.open_ref: tokens, forward, the HeadSource, the shown head's
Scenario admitted); median (min-max) of --repeat runs, wall and this process's CPU. Also the first
load of the weights and the tokenizer (once, cold in this process). The shipped model when it ships,
else random weights of the contract's largest size (d_model 256, 8 heads, 4,096 tokens), said in the first line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from functools import cache
from pathlib import Path

from threadpoolctl import threadpool_limits

PROSE = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of "
    "foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, "
    "it was the season of Darkness, it was the spring of hope, it was the winter of despair. "
)


def model_entry():
    """(the text-demo entry, what it runs on: 'shipped' or 'random ...')."""
    from attn_tui.core.models import MODELS, text

    if text.WEIGHTS.is_file() and text.TOKENIZER.is_file():
        return MODELS["text-demo"], "the shipped text model"
    from tests.core.textmodels import random_text_model, tiny_tokenizer

    folder = Path(tempfile.mkdtemp())
    (folder / text.TOKENIZER.name).write_text(tiny_tokenizer(), encoding="utf-8")
    weights = random_text_model(folder, vocab=4096, d=256, H=8)
    text.shipped_text_model = cache(lambda: text.load_text_model(weights, folder / text.TOKENIZER.name))
    return MODELS["text-demo"], "random weights (d_model 256, 8 heads, 4,096 tokens; not shipped yet)"


def timed(fn, repeat: int) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of each of ``repeat`` calls (CPU: this process's, what a loaded machine's
    other work does not add)."""
    out = []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        out.append((time.perf_counter() - t0, time.process_time() - c0))
    return out


def say(name: str, runs: list) -> None:
    wall, cpu = ([r[i] * 1e3 for r in runs] for i in (0, 1))
    print(
        f"  {name:<34} wall {statistics.median(wall):7.1f} ms ({min(wall):.1f}-{max(wall):.1f})"
        f"   CPU {statistics.median(cpu):7.1f} ms ({min(cpu):.1f}-{max(cpu):.1f})"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--T", type=int, nargs="+", default=[128, 256, 512, 1024])
    a = p.parse_args()
    entry, what = model_entry()
    from attn_tui.tui.heads_nav import open_ref

    with threadpool_limits(1):
        t0 = time.perf_counter()
        model = entry.model()
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"text-demo on {what}; one BLAS thread; median (min-max) of {a.repeat}; load average {load}")
        print(f"first load (weights, tokenizer): {(time.perf_counter() - t0) * 1e3:.0f} ms")
        tok = model.tokenizer
        for T in a.T:
            ids = tok.encode(PROSE * (T // 20 + 1)).ids[:T]
            text = tok.decode(ids)
            T = len(tok.encode(text).ids)
            print(f"T = {T} tokens ({len(text)} characters)")
            say("tokenize", timed(lambda text=text: entry.encode(text), a.repeat))
            say("tokenize + forward", timed(lambda text=text: entry.run(text), a.repeat))
            say("what i runs (+ heads, the head)", timed(lambda text=text: open_ref("text-demo", text), a.repeat))


if __name__ == "__main__":
    main()

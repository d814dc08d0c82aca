"""The cost of `attn-tui capture` against one forward pass of the same model (README: Capture a
real model). A random GPT-2-small-sized model (12 layers x 12 heads, d_model 768, no task head:
AutoModel, as capture loads it) on 512 tokens, on the CPU, float32:

    forward   model(ids, output_attentions=True), attn_implementation="eager"
    capture   the forward through the capture's attention function + the arrays + the core's check
              of every head (run.capture + run.check), then the file written (run.write_checked)

Medians of ROUNDS interleaved runs after one warm-up (min-max beside them); the ratio capture /
forward is taken round by round (each capture against the forward just before it) and its
median printed, so a busy moment of a shared machine weighs on both sides of one ratio; the
same ratio of CPU time (time.process_time, every thread of the process) is printed too, which
other processes on the machine move less than wall time.
Needs the models extra: python scripts/bench_capture.py [--threads N] [--tokens T] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
from transformers import AutoModel, GPT2Config

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: its tests package

from attn_tui.capture import interface  # noqa: E402
from attn_tui.capture.run import capture, check, write_checked  # noqa: E402
from tests.capture.tiny_models import byte_level_tokenizer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    tok = byte_level_tokenizer()
    cfg = GPT2Config(n_layer=12, n_head=12, n_embd=768, n_positions=1024, vocab_size=50257)
    with tempfile.TemporaryDirectory() as d:
        AutoModel.from_config(cfg).save_pretrained(d)
        interface.register()
        eager = AutoModel.from_pretrained(d, attn_implementation="eager").eval()
        cap = AutoModel.from_pretrained(d, attn_implementation=interface.NAME).eval()
    ids = torch.randint(0, len(tok), (1, a.tokens))
    enc = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    out = Path(tempfile.mkdtemp()) / "bench.safetensors"

    def forward():
        with torch.inference_mode():
            eager(**enc, output_attentions=True)

    def captured():
        c = capture(cap, tok, enc)
        t = time.perf_counter()
        result = check(c)
        return c, result, time.perf_counter() - t

    forward(), captured()  # warm-up
    f, c_all, chk, w, cpu = [], [], [], [], []
    for _ in range(a.rounds):
        t0, p0 = time.perf_counter(), time.process_time()
        forward()
        t1, p1 = time.perf_counter(), time.process_time()
        c, result, t_check = captured()
        t2, p2 = time.perf_counter(), time.process_time()
        cpu.append((p2 - p1) / (p1 - p0))
        write_checked(c, out, title="bench", source="bench", provenance={}, result=result)
        t3 = time.perf_counter()
        f.append(t1 - t0), c_all.append(t2 - t1), chk.append(t_check), w.append(t3 - t2)
    med = statistics.median
    print(f"{cfg.n_layer} x {cfg.n_head} heads, {a.tokens} tokens, float32, {a.threads} torch threads")
    print(f"forward (eager, output_attentions=True): {med(f):.2f} s  ({min(f):.2f}-{max(f):.2f})")
    print(f"capture (forward + arrays + check):      {med(c_all):.2f} s  ({min(c_all):.2f}-{max(c_all):.2f})")
    print(f"  of which the core's check:             {med(chk):.2f} s")
    print(f"file written ({out.stat().st_size / 2**20:.0f} MiB):              {med(w):.2f} s")
    r = [c / x for c, x in zip(c_all, f)]
    rw = [(c + y) / x for c, y, x in zip(c_all, w, f)]
    print(
        f"capture / forward, paired by round: median {med(r):.2f} ({min(r):.2f}-{max(r):.2f}); "
        f"with the file written {med(rw):.2f} ({min(rw):.2f}-{max(rw):.2f})"
    )
    print(f"CPU time (all threads) capture / forward, paired: median {med(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f})")
    print(result.line())
    out.unlink()


if __name__ == "__main__":
    main()

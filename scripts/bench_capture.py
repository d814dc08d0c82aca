"""The cost of `attn-tui capture` against one forward pass of the same model (docs/CAPTURE.md: Capture a
real model). A random GPT-2-small-sized model (12 layers x 12 heads, d_model 768, no task head:
AutoModel, as capture loads it) on 512 tokens, on the CPU, float32:

    forward   model(ids, output_attentions=True), attn_implementation="eager"
    capture   the forward through the capture's attention function + the arrays + the core's check
              of every head (run.capture + run.check), then the file written (run.write_checked)

Medians of ROUNDS interleaved runs after one warm-up (min-max beside them), in wall time and in
CPU time of the process (time.process_time, every thread), with the load average before and after;
the ratio capture / forward is taken round by round (each capture against the forward just
before it) and its median printed, so a busy moment of a shared machine weighs on both sides of
one ratio; the CPU-time ratio is the one other processes on the machine move least.
Needs the models extra: python scripts/bench_capture.py [--threads N] [--tokens T] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
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
    load0 = os.getloadavg()[0]
    f, c_all, chk, w, f_cpu, c_cpu, w_cpu = ([] for _ in range(7))
    for _ in range(a.rounds):
        t0, p0 = time.perf_counter(), time.process_time()
        forward()
        t1, p1 = time.perf_counter(), time.process_time()
        c, result, t_check = captured()
        t2, p2 = time.perf_counter(), time.process_time()
        write_checked(c, out, title="bench", source="bench", provenance={}, result=result)
        t3, p3 = time.perf_counter(), time.process_time()
        f.append(t1 - t0), c_all.append(t2 - t1), chk.append(t_check), w.append(t3 - t2)
        f_cpu.append(p1 - p0), c_cpu.append(p2 - p1), w_cpu.append(p3 - p2)
    print(
        f"{cfg.n_layer} x {cfg.n_head} heads, {a.tokens} tokens, float32, {a.threads} torch threads, {a.rounds} rounds"
    )
    print(f"load average (1 min) {load0:.1f} before the rounds, {os.getloadavg()[0]:.1f} after")
    print("                                          wall time, median (min-max)   CPU time of the process")
    _row("forward (eager, output_attentions=True)", f, f_cpu)
    _row("capture (forward + arrays + check)", c_all, c_cpu)
    print(f"  of which the core's check               {statistics.median(chk):.2f} s")
    _row(f"file written ({out.stat().st_size / 2**20:.0f} MiB)", w, w_cpu)
    _ratio("capture / forward", c_all, f, c_cpu, f_cpu)
    _ratio("with the file written", [c + y for c, y in zip(c_all, w)], f, [c + y for c, y in zip(c_cpu, w_cpu)], f_cpu)
    print(result.line())
    out.unlink()


def _row(what, wall, cpu):
    med = statistics.median
    print(f"{what:<41} {med(wall):5.2f} s ({min(wall):.2f}-{max(wall):.2f})           {med(cpu):5.2f} s")


def _ratio(what, num, den, num_cpu, den_cpu):
    """The ratio round by round (each capture against the forward just before it), its median and range."""
    r = [n / d for n, d in zip(num, den)]
    rc = [n / d for n, d in zip(num_cpu, den_cpu)]
    med = statistics.median
    print(
        f"{what + ', paired by round:':<41} {med(r):5.2f}   ({min(r):.2f}-{max(r):.2f})"
        f"           {med(rc):5.2f}   ({min(rc):.2f}-{max(rc):.2f})"
    )


if __name__ == "__main__":
    main()

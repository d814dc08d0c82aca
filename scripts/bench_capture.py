"""The cost of `attn-tui capture` against one forward pass of the same model (docs/CAPTURE.md;
issue 41's done-when). A random Llama-shaped model (hidden 1024, 16 heads, 4 K/V heads,
2 layers, d_k 64; AutoModel, as capture loads it) with a WordLevel tokenizer trained here, on a
text of T words (T tokens), float32, on the CPU:

    forward   model(ids, output_attentions=True), attn_implementation="eager": every layer's A kept
    capture   the forward through the capture's function, each layer checked by the core and
              written as it comes (run.capture), the header (run.finish), the rename (Destination)

Each runs in a process of its own after the model is loaded (wall and CPU time of the step; the
process's own peak RSS, VmHWM, and its RSS before the step), ROUNDS times, interleaved; medians and
ranges, and the ratio capture / forward round by round. Then the file: its bytes against its Q, K,
V and W_O; and what opens it: `attn-tui heads FILE --layer 1` and the explorer's first frame (a
120x40 pty, attn_tui.bench.launch) against `attn-tui report` and the explorer on a single-head
file of the same T (layer 1, head 0's Q, K, V).

With --device cuda (issue 48 item 5) each step also says where its time went: loading the model
onto the GPU, the forward (cold, then warm), writing the file (its bytes copied once more); the
figures asked for are capture wall <= 2x (load + forward + write) and host peak RSS <= the model +
the file's arrays + 1 GiB. --json FILE writes every figure.

Needs the models extra: python scripts/bench_capture.py [--tokens T] [--rounds R] [--threads N]
[--hidden D] [--layers L] [--device cpu|cuda] [--dtype float32|bfloat16] [--no-opening] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = 2000


def build(folder: Path, T: int, seed: int = 0, hidden: int = 1024, layers: int = 2) -> Path:
    """The model and tokenizer in ``folder``; returns the text file (T words, one token each)."""
    import numpy as np
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import AutoModel, LlamaConfig, PreTrainedTokenizerFast

    vocab = {"[UNK]": 0} | {f"w{i}": i + 1 for i in range(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    cfg = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        num_attention_heads=16,
        num_key_value_heads=4,
        num_hidden_layers=layers,
        intermediate_size=2816 * hidden // 1024,
        max_position_embeddings=max(T, 4096),
        bos_token_id=0,
        eos_token_id=0,
    )
    torch.manual_seed(seed)
    AutoModel.from_config(cfg).save_pretrained(folder)
    fast.save_pretrained(folder)
    words = np.random.default_rng(seed).integers(0, WORDS, T)
    text = folder / "text.txt"
    text.write_text(" ".join(f"w{i}" for i in words))
    return text


def child(kind: str, folder: str, text_file: str, out: str, device: str = "cpu", dtype: str = "float32") -> dict:
    """One step in this process: its wall and CPU time, the RSS before it and the process's peak;
    the model's load (onto ``device``) timed apart, and on cuda the forward twice (cold, warm)."""
    import torch

    from attn_tui.capture import load, run
    from attn_tui.capture.destination import Destination

    text = Path(text_file).read_text()
    config, tok = load.prepare(folder, dtype=dtype, device=device)
    enc = {k: v.to(device) for k, v in tok(text, return_tensors="pt").items()}
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    t_load = time.perf_counter()
    if kind == "forward":
        from transformers import AutoModel

        model = AutoModel.from_pretrained(folder, attn_implementation="eager", dtype=load.DTYPES[dtype])
        model = model.to(device).eval()
    else:
        model = load.load_model(folder, config, dtype=dtype, device=device)
    sync()
    t_load = time.perf_counter() - t_load
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    rss0 = _rss()
    t0, p0 = time.perf_counter(), time.process_time()
    extra = {}
    if kind == "forward":
        with torch.inference_mode():
            kept = model(**enc, output_attentions=True)  # noqa: F841  (held, as a user of them would)
            sync()
            if device == "cuda":  # warm: the kernels compiled, the allocator primed
                extra["cold"] = time.perf_counter() - t0
                del kept
                t1 = time.perf_counter()
                kept = model(**enc, output_attentions=True)  # noqa: F841
                sync()
                extra["warm"] = time.perf_counter() - t1
        line = ""
    else:
        dest = Destination(out, force=True)
        with dest as tmp:
            c = run.capture(model, tok, enc, tmp)
            run.finish(c, title="bench", source="bench", provenance={"max_abs_dA": c.result.max_abs_diff})
            dest.commit()
        line = c.result.line()
    sync()
    wall, cpu = time.perf_counter() - t0, time.process_time() - p0
    peak = _own_peak()
    T = int(enc["input_ids"].shape[1])
    return (
        {"wall": wall, "cpu": cpu, "rss0": rss0, "peak": peak, "T": T, "line": line, "load": t_load}
        | {"model_bytes": params}
        | extra
    )


def _own_peak() -> int:
    """This process's own peak RSS (VmHWM), not ru_maxrss: a child that subprocess starts (vfork, then
    exec) reports there its parent's peak, and this parent built the model (tests/peak_rss.py)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) * 1024


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _run_child(kind, folder, text, out, threads, device="cpu", dtype="float32") -> dict:
    env = os.environ | {"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads)}
    argv = [sys.executable, __file__, "--child", kind, str(folder), str(text), str(out), device, dtype]
    p = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def _timed(argv) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, env=os.environ | {"PYTHONPATH": str(ROOT)})
    return time.perf_counter() - t0


def _med(xs, unit=1.0, fmt="{:.2f}"):
    m = statistics.median(xs) / unit
    return f"{fmt.format(m)} ({fmt.format(min(xs) / unit)}-{fmt.format(max(xs) / unit)})"


def _opening(out: Path, T: int, rounds: int) -> list[str]:
    """`heads FILE --layer 1` and the explorer's first frame, against a single-head file of the same T."""
    import numpy as np

    from attn_tui.bench.launch import EXPLORER_READY, launch_s
    from attn_tui.core.heads.door import open_heads

    src = open_heads(str(out))
    single = out.with_name("single.npz")
    np.savez(single, **dict(zip("QKV", (x.astype(np.float32) for x in src.qkv(1, 0)))))
    py = [sys.executable, "-m", "attn_tui"]
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    rows = {
        "heads FILE --layer 1": [],
        "report --scenario single.npz": [],
        "explorer, capture": [],
        "explorer, single": [],
    }
    for _ in range(rounds):
        rows["heads FILE --layer 1"].append(_timed([*py, "heads", str(out), "--layer", "1"]))
        rows["report --scenario single.npz"].append(_timed([*py, "report", "--scenario", str(single)]))
        rows["explorer, capture"].append(launch_s([*py, "--scenario", str(out), "--fresh"], EXPLORER_READY, env)[0])
        rows["explorer, single"].append(launch_s([*py, "--scenario", str(single), "--fresh"], EXPLORER_READY, env)[0])
    lines = [f"opening, T = {T} (wall time, median (min-max) of {rounds}, s):"]
    lines += [f"  {k:<30} {_med(v)}" for k, v in rows.items()]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=1024, help="d_model (16 heads: d_k = hidden / 16)")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    ap.add_argument("--no-opening", action="store_true", help="leave out heads FILE and the explorer")
    ap.add_argument("--json", metavar="FILE", help="every figure, as JSON")
    ap.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(*a.child)))
        return
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / "model"
        text = build(folder, a.tokens, hidden=a.hidden, layers=a.layers)
        out = Path(d) / "capture.safetensors"
        load0 = os.getloadavg()[0]
        runs = {"forward": [], "capture": []}
        for _ in range(a.rounds):
            for kind in runs:
                runs[kind].append(_run_child(kind, folder, text, out, a.threads, a.device, a.dtype))
        figures = _print(runs, a, load0) | _file_sizes(out, runs)
        if not a.no_opening:
            print("\n".join(_opening(out, a.tokens, a.rounds)))
        if a.json:
            Path(a.json).write_text(json.dumps({"args": vars(a), "runs": runs, "figures": figures}, indent=1))


def _print(runs, a, load0) -> dict:
    f, c = runs["forward"], runs["capture"]
    print(
        f"Llama-shaped: hidden {a.hidden}, 16 heads, 4 K/V heads, {a.layers} layers; T = {f[0]['T']}, {a.dtype}, "
        f"{a.device}, {a.threads} threads"
    )
    print(f"load average (1 min) {load0:.1f} before, {os.getloadavg()[0]:.1f} after; {a.rounds} rounds, interleaved")
    G = 2**30
    for name, rs in runs.items():
        print(
            f"{name:<8} wall {_med([r['wall'] for r in rs])} s, CPU {_med([r['cpu'] for r in rs])} s; "
            f"peak RSS {_med([r['peak'] for r in rs], G)} GiB (before the step {_med([r['rss0'] for r in rs], G)}); "
            f"model load {_med([r['load'] for r in rs])} s"
        )
    ratio = {k: [x[k] / y[k] for x, y in zip(c, f)] for k in ("wall", "cpu", "peak")}
    grown = [(x["peak"] - x["rss0"]) / max(1, y["peak"] - y["rss0"]) for x, y in zip(c, f)]
    print(
        f"capture / forward, round by round: wall {_med(ratio['wall'])}, CPU {_med(ratio['cpu'])}, "
        f"peak RSS {_med(ratio['peak'])} (what the step added: {_med(grown)})"
    )
    if "warm" in f[0]:
        print(
            f"forward on {a.device}: cold {_med([r['cold'] for r in f], fmt='{:.3f}')} s, "
            f"warm {_med([r['warm'] for r in f], fmt='{:.3f}')} s"
        )
    print(c[-1]["line"])
    med = statistics.median
    return {
        "capture_wall_s": med(r["wall"] for r in c),
        "capture_load_s": med(r["load"] for r in c),
        "forward_wall_s": med(r["wall"] for r in f),
        "forward_load_s": med(r["load"] for r in f),
        "forward_warm_s": med(r["warm"] for r in f) if "warm" in f[0] else None,
        "capture_over_forward_wall": med(ratio["wall"]),
        "capture_over_forward_cpu": med(ratio["cpu"]),
        "capture_over_forward_peak_rss": med(ratio["peak"]),
        "capture_peak_rss_bytes": med(r["peak"] for r in c),
        "forward_peak_rss_bytes": med(r["peak"] for r in f),
        "model_bytes": c[0]["model_bytes"],
        "check_line": c[-1]["line"],
    }


def _file_sizes(out: Path, runs) -> dict:
    """The file against its Q, K, V, W_O; the time to write its bytes (copied once more, fsync'd);
    capture wall (with its load) against load + forward + write, and host peak RSS against the
    model + the file's arrays + 1 GiB (issue 48's GPU targets)."""
    import shutil

    import numpy as np

    from attn_tui.core.heads.multihead_io import open_file

    src = open_file(out)
    item = {"float16": 2, "float32": 4, "float64": 8}.get(src.dtype, 4)
    arrays = sum(int(np.prod(s)) * item for k, s in src.shapes.items() if k in ("Q", "K", "V", "W_O"))
    size = out.stat().st_size
    t0 = time.perf_counter()
    copy = out.with_name("copy.safetensors")
    shutil.copyfile(out, copy)
    with open(copy, "rb+") as fh:
        os.fsync(fh.fileno())
    write = time.perf_counter() - t0
    copy.unlink()
    c, f = runs["capture"], runs["forward"]
    med = statistics.median
    capture_total = med(r["wall"] + r["load"] for r in c)
    budget = med(r["load"] for r in f) + med(r.get("warm", r["wall"]) for r in f) + write
    cold = med(r["load"] for r in f) + med(r.get("cold", r["wall"]) for r in f) + write  # a fresh process's forward
    rss_base = med(r["rss0"] for r in c)  # the process before the step: torch (and CUDA's libraries) loaded
    rss_budget = c[0]["model_bytes"] + arrays + 2**30
    peak = med(r["peak"] for r in c)
    print(f"file {size / 2**20:.1f} MiB; its Q, K, V, W_O {arrays / 2**20:.1f} MiB: {size / arrays:.3f}x")
    print(
        f"capture with its load {capture_total:.2f} s against load + forward + write {budget:.2f} s "
        f"(write {write:.2f} s): {capture_total / budget:.2f}x (target <= 2)"
    )
    if "cold" in f[0]:
        print(
            f"  the same with the forward cold, as a process that runs one pays it: load + forward + write "
            f"{cold:.2f} s: {capture_total / cold:.2f}x"
        )
    print(
        f"host peak RSS {peak / 2**30:.2f} GiB against model + file arrays + 1 GiB {rss_budget / 2**30:.2f} GiB: "
        f"{peak / rss_budget:.2f}x (target <= 1); the process held {rss_base / 2**30:.2f} GiB before the step"
    )
    return {
        "file_bytes": size,
        "file_arrays_bytes": arrays,
        "file_over_arrays": size / arrays,
        "write_s": write,
        "capture_with_load_s": capture_total,
        "load_forward_write_s": budget,
        "capture_over_load_forward_write": capture_total / budget,
        "load_cold_forward_write_s": cold,
        "capture_over_load_cold_forward_write": capture_total / cold,
        "rss_before_step_bytes": rss_base,
        "host_peak_over_model_arrays_1GiB": peak / rss_budget,
    }


if __name__ == "__main__":
    main()

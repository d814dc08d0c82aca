"""Train the text model (docs/TEXT_MODEL.md) and write the two files its NumPy runtime loads.

    python scripts/train_text_model.py --device cuda    # pretrain (the shipped weights' stage 1: 158 s on an H200)
    python scripts/train_text_model.py --eval-only      # measure the files in --out
    python scripts/train_text_model.py --init W --tokenizer T ...   # fine-tune from W (stages 2, 3: 21, 2.5 min)

The text: the English prose of the Python 3.11 documentation (Debian package python3.11-doc,
PSF License v2), fetched with `apt-get download` and cached under --cache. Paragraphs (<p>) of
each page's body, without code blocks or tables; one page = one document; 2 % of the pages
(seeded) are held out. The tokenizer: byte-level BPE (`tokenizers`, 4096 ids, "<|endoftext|>" = 0
between documents). The model: the attention-only two-layer transformer of docs/TEXT_MODEL.md
(pre-LN, RoPE, no biases), AdamW, fixed seed. Every embedding row starts with one shared random
direction (--embed-shared): without it no layer-0 head attended by position. 70 % of the rows of a
batch hold a repeated segment (20 %: a natural span, then the same again; 50 %: common word tokens,
then the same again) so that an induction head forms. Every --ckpt-every steps the checkpoint and
the two shipped files are written, so a cut run still leaves a usable model.
The defaults are the shipped weights' pretraining: 12,000 steps of 32 x 256 tokens (98 M tokens).
On this project's 2-core CPU one step takes about 3-6 s, so it is for a GPU; CPU runs of an hour
(about 1,000 steps) from random weights grew no induction head. The shipped weights are that
pretraining fine-tuned twice on the CPU (--init): 918 steps with the repeats' words drawn by
frequency, then 500 steps from a stronger shared direction (--init-shared) with repeats of random ids
(--frac-random-repeat): docs/TEXT_MODEL.md, "The recipe".
The evaluation prints the table pasted in docs/TEXT_MODEL.md, measured on the shipped files.
"""

from __future__ import annotations

import argparse
import html.parser
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "attn_tui" / "core" / "models"
WEIGHTS, TOKENIZER = "text_model.safetensors", "text_tokenizer.json"
PACKAGE = "python3.11-doc"
HTML_DIR = "usr/share/doc/python3.11/html"
CORPUS = "Python 3.11 documentation, Debian python3.11-doc (PSF License v2): <p> prose"
EOT, VOCAB, SEED = "<|endoftext|>", 4096, 0
N_CTX, ROPE_BASE, LN_EPS = 1024, 10000.0, 1e-5


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "attn-tui-text-model")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--steps", type=int, default=12000)
    ap.add_argument("--batch", type=int, default=32, help="sequences a step")
    ap.add_argument("--n-ctx-train", type=int, default=256)
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--frac-text-repeat", type=float, default=0.2)
    ap.add_argument("--frac-token-repeat", type=float, default=0.5)
    ap.add_argument(
        "--frac-random-repeat",
        type=float,
        default=0.0,
        help="rows holding a run of ids drawn uniformly from the whole vocabulary (no EOT, distinct), then the "
        "same run again: no bigram helps, only the exact previous token",
    )
    ap.add_argument("--stop-after", type=int, help="stop at this step (schedule of --steps)")
    ap.add_argument(
        "--time-budget",
        type=float,
        help="seconds of training: --steps is set from the speed of the warm-up steps (printed, and kept in "
        "the file's metadata, so --steps N repeats the run)",
    )
    ap.add_argument("--ckpt-every", type=int, default=3000)
    ap.add_argument("--log-every", type=int, default=500)
    ap.add_argument("--resume", action="store_true", help="go on from --ckpt")
    ap.add_argument("--ckpt", type=Path, help="the checkpoint file (default --cache/ckpt.pt)")
    ap.add_argument("--eval-only", action="store_true", help="measure the files in --out")
    ap.add_argument("--skip-eval", action="store_true", help="train, and leave the measuring to --eval-only")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="cpu, or cuda (the shipped weights' pretraining: an H200)")
    ap.add_argument("--embed-shared", type=float, default=0.1, help="std of the direction every embedding starts with")
    ap.add_argument("--tokenizer", type=Path, help="a tokenizer.json to use instead of training one")
    ap.add_argument(
        "--init",
        type=Path,
        help="start from the weights of this text_model.safetensors (a fine-tune; give its --tokenizer too)",
    )
    ap.add_argument(
        "--init-shared",
        type=float,
        default=0.0,
        help="with --init: add S * sqrt(d_model) along the mean embedding row's direction to every row (the "
        "norm --embed-shared S gives at init): a stronger position signal for layer 0 to start from",
    )
    ap.add_argument("--repeat-top", type=int, default=1000, help="the repeats' words: the N commonest word tokens")
    ap.add_argument(
        "--repeat-alpha",
        type=float,
        default=0.0,
        help="draw the repeats' words with probability count**alpha, distinct within a span (0: uniform, "
        "with replacement, as the shipped pretraining)",
    )
    return ap.parse_args(argv)


# ---------------------------------------------------------------- the text


class Paragraphs(html.parser.HTMLParser):
    """The text of each <p> inside a Sphinx page's body, outside <pre>, tables and scripts."""

    SKIP = {"pre", "table", "script", "style"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self.main_depth = 0  # > 0 inside <div role="main">
        self.skip = 0
        self.buf: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "div" and (self.main_depth or ("role", "main") in attrs):
            self.main_depth += 1
        if tag in self.SKIP:
            self.skip += 1
        if tag == "p" and self.main_depth and not self.skip:
            self.buf = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.main_depth:
            self.main_depth -= 1
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        if tag == "p" and self.buf is not None:
            text = re.sub(r"\s+", " ", "".join(self.buf).replace("\u00b6", "")).strip()
            if len(text) >= 40:  # drops captions, "New in version" stubs, lone names
                self.paragraphs.append(text)
            self.buf = None

    def handle_data(self, data: str) -> None:
        if self.buf is not None and not self.skip:
            self.buf.append(data)


def fetch_package(cache: Path) -> Path:
    """Download and unpack PACKAGE into cache/PACKAGE (once); the unpacked root."""
    root = cache / PACKAGE
    if (root / HTML_DIR).is_dir():
        return root
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        sys.exit(f"error: apt-get and dpkg-deb are needed to fetch {PACKAGE} (Debian/Ubuntu)")
    deb_dir = cache / "deb"
    deb_dir.mkdir(parents=True, exist_ok=True)
    got = subprocess.run(["apt-get", "download", PACKAGE], cwd=deb_dir, capture_output=True)
    debs = sorted(deb_dir.glob(f"{PACKAGE}_*.deb"))
    if not debs:
        err = got.stderr.decode(errors="replace").strip().splitlines()[-1:]
        sys.exit(f"error: apt-get download {PACKAGE} failed: {' '.join(err)} (apt-get update?)")
    subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(root)], check=True)
    return root


def load_documents(cache: Path) -> list[str]:
    """One document per HTML page with prose, sorted by path; cached as cache/documents.json."""
    cached = cache / "documents.json"
    if cached.exists():
        return json.loads(cached.read_text())
    html_root = fetch_package(cache) / HTML_DIR
    docs = []
    for page in sorted(html_root.rglob("*.html")):
        if page.relative_to(html_root).parts[0] in {"_static", "_sources", "_images"}:
            continue
        parser = Paragraphs()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        if parser.paragraphs:
            docs.append("\n\n".join(parser.paragraphs))
    cached.write_text(json.dumps(docs))
    return docs


def split_documents(docs: list[str]) -> tuple[list[str], list[str]]:
    """(train, held out): a seeded 2 % of the documents held out."""
    order = np.random.default_rng(SEED).permutation(len(docs))
    n_held = max(1, round(0.02 * len(docs)))
    held = set(order[:n_held].tolist())
    return [d for i, d in enumerate(docs) if i not in held], [docs[i] for i in sorted(held)]


def train_tokenizer(train_docs: list[str]) -> Tokenizer:
    """Byte-level BPE, VOCAB ids, EOT = id 0; no post-processor (encode(text).ids as is)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        min_frequency=2,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(train_docs, trainer=trainer)
    assert tok.token_to_id(EOT) == 0
    return tok


def token_stream(tok: Tokenizer, docs: list[str]) -> np.ndarray:
    """All documents' ids, each followed by EOT; (N,) int64."""
    ids: list[int] = []
    for enc in tok.encode_batch(docs):
        ids.extend(enc.ids)
        ids.append(0)
    return np.asarray(ids, dtype=np.int64)


# ---------------------------------------------------------------- the model (the spec)


def init_params(vocab: int, d: int, heads: int, gen: torch.Generator, shared: float = 0.0) -> dict:
    """Spec-layout weights (safetensors keys), float32, requiring grad."""
    dh = d // heads

    def normal(shape: tuple, std: float) -> torch.Tensor:
        return (torch.randn(shape, generator=gen) * std).requires_grad_()

    p = {"embed": normal((vocab, d), 0.1)}
    if shared:  # one random direction added to every row: LN keeps it, and a layer-0 head can
        # attend by position through RoPE alone (without it no previous-token head formed)
        with torch.no_grad():
            p["embed"] += shared * torch.randn(1, d, generator=gen)
    for layer in range(2):
        p[f"layers.{layer}.ln"] = torch.ones(d, requires_grad=True)
        for name in ("W_Q", "W_K", "W_V"):
            p[f"layers.{layer}.{name}"] = normal((heads, d, dh), d**-0.5)
        p[f"layers.{layer}.W_O"] = normal((heads, dh, d), 0.02)
    p["ln_final"] = torch.ones(d, requires_grad=True)
    p["unembed"] = normal((d, vocab), 0.5 * d**-0.5)
    return p


def rope_tables(n: int, dh: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (n, dh): GPT-NeoX rotate_half RoPE for positions 0..n-1."""
    inv_freq = ROPE_BASE ** (-torch.arange(dh // 2, dtype=torch.float64) * 2 / dh)
    ang = torch.arange(n, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    return cos.float(), sin.float()


def rope(q: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = q.shape[-1] // 2
    return q * cos + torch.cat([-q[..., half:], q[..., :half]], -1) * sin


def forward(p: dict, ids: torch.Tensor, keep: bool = False) -> tuple[torch.Tensor, list]:
    """Logits (B, T, V) and, when keep, each layer's A (B, H, T, T)."""
    heads, d, dh = p["layers.0.W_Q"].shape
    n = ids.shape[1]
    cos, sin = rope_tables(n, dh)
    cos, sin = cos.to(ids.device), sin.to(ids.device)
    x = p["embed"][ids]  # (B, T, d)
    patterns = []
    for layer in range(2):
        w = {k: p[f"layers.{layer}.{k}"] for k in ("ln", "W_Q", "W_K", "W_V", "W_O")}
        h = F.layer_norm(x, (d,), w["ln"], None, LN_EPS)
        q, k, v = (torch.einsum("btd,hde->bhte", h, w[m]) for m in ("W_Q", "W_K", "W_V"))
        q, k = rope(q, cos, sin), rope(k, cos, sin)  # (B, H, T, dh)
        if keep:
            s = q @ k.transpose(-1, -2) / math.sqrt(dh)
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=ids.device).triu(1), float("-inf"))
            a = s.softmax(-1)
            patterns.append(a)
            o = a @ v
        else:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + torch.einsum("bhte,hed->btd", o, w["W_O"])
    return F.layer_norm(x, (d,), p["ln_final"], None, LN_EPS) @ p["unembed"], patterns


def numpy_forward(w: dict, ids: np.ndarray) -> tuple[np.ndarray, list]:
    """The spec's forward written plainly in NumPy (float32): logits (T, V), A per layer."""
    heads, d, dh = w["layers.0.W_Q"].shape
    n = len(ids)

    def ln(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + np.float32(LN_EPS)) * g

    inv_freq = ROPE_BASE ** (-np.arange(dh // 2) * 2 / dh)
    ang = np.arange(n)[:, None] * inv_freq[None, :]
    cos = np.concatenate([np.cos(ang)] * 2, -1).astype(np.float32)
    sin = np.concatenate([np.sin(ang)] * 2, -1).astype(np.float32)

    def rot(q: np.ndarray) -> np.ndarray:
        return q * cos + np.concatenate([-q[:, dh // 2 :], q[:, : dh // 2]], -1) * sin

    x, patterns = w["embed"][ids], []
    mask = np.triu(np.full((n, n), -np.inf, np.float32), 1)
    for layer in range(2):
        h, out, a_l = ln(x, w[f"layers.{layer}.ln"]), np.zeros_like(x), []
        for j in range(heads):
            q, k, v = (h @ w[f"layers.{layer}.{m}"][j] for m in ("W_Q", "W_K", "W_V"))
            s = rot(q) @ rot(k).T / np.float32(math.sqrt(dh)) + mask
            a = np.exp(s - s.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            out += (a @ v) @ w[f"layers.{layer}.W_O"][j]
            a_l.append(a)
        x = x + out
        patterns.append(np.stack(a_l))
    return ln(x, w["ln_final"]) @ w["unembed"], patterns


# ---------------------------------------------------------------- training


def common_tokens(stream: np.ndarray, tok: Tokenizer, n: int = 1000) -> np.ndarray:
    """The n most frequent training ids that are a space and letters (" the", " function")."""
    counts = np.bincount(stream, minlength=tok.get_vocab_size())
    words = [i for i in np.argsort(-counts) if re.fullmatch("Ġ[a-z]+", tok.id_to_token(int(i)))]
    return np.asarray(words[:n], dtype=np.int64)


def repeat_pool(stream: np.ndarray, tok: Tokenizer, args) -> tuple[np.ndarray, np.ndarray | None]:
    """The repeats' words (the --repeat-top commonest) and, when --repeat-alpha, their probabilities
    (count**alpha, normalised); None: uniform."""
    ids = common_tokens(stream, tok, args.repeat_top)
    if not args.repeat_alpha:
        return ids, None
    weight = np.bincount(stream, minlength=tok.get_vocab_size())[ids].astype(np.float64) ** args.repeat_alpha
    return ids, weight / weight.sum()


def repeat_span(stream: np.ndarray, pool: tuple, rng: np.random.Generator, r: float, k: int, args) -> np.ndarray:
    """The span a row repeats, by where r falls: a natural span (--frac-text-repeat), common words
    (--frac-token-repeat), or ids uniform over the vocabulary but EOT (--frac-random-repeat)."""
    common, probs = pool
    if r < args.frac_text_repeat:
        s = int(rng.integers(0, len(stream) - k))
        return stream[s : s + k]
    if r < args.frac_text_repeat + args.frac_token_repeat:
        return rng.choice(common, k) if probs is None else rng.choice(common, k, replace=False, p=probs)
    return 1 + rng.choice(args.vocab - 1, k, replace=False)


def make_batch(stream: np.ndarray, pool: tuple, rng: np.random.Generator, args) -> np.ndarray:
    """(B, n+1) ids: natural crops; a fraction hold a span then the same span again."""
    common, probs = pool
    n1 = args.n_ctx_train + 1
    starts = rng.integers(0, len(stream) - n1, args.batch)
    rows = np.stack([stream[s : s + n1] for s in starts])
    for row in rows:
        r = rng.random()
        if r >= args.frac_text_repeat + args.frac_token_repeat + args.frac_random_repeat:
            continue
        k = int(rng.integers(4, n1 // 2 + 1))
        if probs is not None:
            k = min(k, len(common))
        span = repeat_span(stream, pool, rng, r, k, args)
        at = int(rng.integers(0, n1 - 2 * k + 1))
        row[at : at + k] = span
        row[at + k : at + 2 * k] = span
    return rows


def lr_at(step: int, args) -> float:
    """Linear warmup, then cosine down to 10 % of --lr at --steps."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    frac = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


def make_optimizer(p: dict, args) -> torch.optim.Optimizer:
    decay = [t for k, t in p.items() if not k.endswith("ln") and k != "ln_final"]
    no_decay = [t for k, t in p.items() if k.endswith("ln") or k == "ln_final"]
    groups = [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]
    fused = p["embed"].device.type == "cuda"  # one kernel for every tensor: the step is launch-bound
    return torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.98), fused=fused)


def steps_for_budget(args, step: int, elapsed: float, since: tuple[int, float]) -> int:
    """--steps that ends near --time-budget, from the speed of the steps since ``since``
    (step, seconds): called once, at the end of the warm-up, before the schedule reads --steps."""
    per_step = (elapsed - since[1]) / max(1, step - since[0])
    return step + max(1, int((args.time_budget - elapsed) / per_step))


def train(p: dict, stream: np.ndarray, pool: tuple, tok: Tokenizer, args) -> dict:
    """Train in place; writes checkpoints and the shipped files; returns provenance."""
    opt, rng, step, seconds = make_optimizer(p, args), np.random.default_rng(SEED), 0, 0.0
    ckpt = args.ckpt or args.cache / "ckpt.pt"
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        with torch.no_grad():
            for k, t in p.items():
                t.copy_(state["params"][k])
        opt.load_state_dict(state["opt"])
        rng.bit_generator.state, step, seconds = state["rng"], state["step"], state["seconds"]
        print(f"resumed at step {step} ({seconds:.0f} s)", flush=True)
    t0, run_loss, mark = time.perf_counter() - seconds, [], (0, 0.0)
    while step < min(args.steps, args.stop_after or args.steps):
        if args.time_budget and step in (20, args.warmup):
            el = time.perf_counter() - t0
            if step == 20:
                mark = (step, el)
            else:
                args.steps = steps_for_budget(args, step, el, mark)
                print(f"--time-budget {args.time_budget:.0f} s: --steps {args.steps}", flush=True)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, args)
        ids = torch.from_numpy(make_batch(stream, pool, rng, args)).to(p["embed"].device)
        logits, _ = forward(p, ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(p.values()), 1.0)
        opt.step()
        step, run_loss = step + 1, run_loss + [loss.detach()]  # no sync a step: .item() at the log
        if step % args.log_every == 0:
            el = time.perf_counter() - t0
            print(f"step {step:6d}  loss {torch.stack(run_loss).mean().item():.4f}  {el:7.0f} s", flush=True)
            run_loss = []
        if step % args.ckpt_every == 0 or step in (args.steps, args.stop_after):
            prov = {"steps": step, "seconds": time.perf_counter() - t0}
            state = {"params": p, "opt": opt.state_dict(), "rng": rng.bit_generator.state}
            torch.save({**state, "step": step, "seconds": prov["seconds"]}, ckpt)
            export(p, tok, args, prov)
            quick_eval(p, tok)
    return {"steps": step, "seconds": time.perf_counter() - t0}


def init_from(p: dict, args) -> None:
    """Overwrite p with the weights of --init (same keys and shapes, else exit 2 with one line), and keep
    how they were made in args.init_meta for the metadata."""
    if args.tokenizer is None:
        sys.exit("error: --init needs the --tokenizer its weights were trained with")
    try:
        arrays, meta = load_file(str(args.init)), safe_open_metadata(args.init)
    except Exception as exc:  # noqa: BLE001  (one line naming the file)
        print(f"error: --init {args.init}: not a readable safetensors file ({type(exc).__name__})", file=sys.stderr)
        sys.exit(2)
    for k, t in p.items():
        got = arrays[k].shape if k in arrays else None
        if got != tuple(t.shape):
            print(f"error: --init {args.init}: {k} has shape {got}, the model's is {tuple(t.shape)}", file=sys.stderr)
            sys.exit(2)
        with torch.no_grad():
            t.copy_(torch.from_numpy(arrays[k]))
    if args.init_shared:
        add_shared(p["embed"], args.init_shared)
    earlier = [line for line in (meta.get("earlier_finetunes"), meta.get("finetune")) if line]
    args.init_meta = {
        # the --init file's own steps and seconds (its earlier stages: "pretrain", "earlier_finetunes")
        "init_steps": meta.get("steps", "?"),
        "init_seconds": meta.get("train_seconds", "?"),
        # how the starting weights were made: their own "pretrain" line, or one written from their recipe
        "pretrain": meta.get("pretrain")
        or f"{meta.get('steps', '?')} steps in {meta.get('train_seconds', '?')} s: {meta.get('recipe', '?')}",
        "n_ctx_train": meta.get("n_ctx_train", "?"),
    } | ({"earlier_finetunes": " ; then ".join(earlier)} if earlier else {})
    print(f"init: {args.init} ({args.init_meta['init_steps']} steps, {args.init_meta['init_seconds']} s)")


def add_shared(embed: torch.Tensor, s: float) -> None:
    """Add s * sqrt(d) along the mean row's direction to every row of embed (V, d), in place: the
    norm --embed-shared s gives at init, along the direction the trained heads already read."""
    with torch.no_grad():
        mean = embed[1:].mean(0)  # EOT aside
        embed += s * embed.shape[1] ** 0.5 * mean / mean.norm()


def export(p: dict, tok: Tokenizer, args, prov: dict) -> None:
    """Write the two shipped files (float32 safetensors with the spec's metadata)."""
    heads, d, dh = p["layers.0.W_Q"].shape
    meta = {
        "format": "attn-tui-text-model-1",
        **{"n_layers": "2", "n_heads": str(heads), "d_model": str(d), "d_head": str(dh)},
        **{"n_ctx": str(N_CTX), "rope_base": "10000", "ln_eps": "1e-05"},
        **{"corpus": CORPUS, "seed": str(SEED), "steps": str(prov["steps"])},
        "train_seconds": f"{prov['seconds']:.0f}",
        "n_ctx_train": str(args.n_ctx_train),
        "recipe": " ".join(
            f"--{k.replace('_', '-')} {getattr(args, k)}"
            for k in (
                *("batch", "d_model", "heads", "lr", "embed_shared"),
                *("frac_text_repeat", "frac_token_repeat", "frac_random_repeat"),
            )
        ),
    }
    if args.init:  # a fine-tune: steps and train_seconds are its own, init_* the weights it started from
        init = dict(getattr(args, "init_meta", {}))
        tuned = " ".join(
            f"--{k.replace('_', '-')} {getattr(args, k)}"
            for k in ("steps", "warmup", "n_ctx_train", "repeat_top", "repeat_alpha", "init_shared", "device")
        )
        meta["recipe"] += " " + tuned
        meta["finetune"] = f"{prov['steps']} steps in {prov['seconds']:.0f} s from the --init weights: {meta['recipe']}"
        # the longest windows it was trained on: the pretraining's, where they were longer
        before = init.pop("n_ctx_train", "")
        longest = max(args.n_ctx_train, int(before) if before.isdigit() else 0)
        meta |= init | {"n_ctx_train": str(longest)}
    arrays = {k: np.ascontiguousarray(t.detach().cpu().numpy().astype(np.float32)) for k, t in p.items()}
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / (WEIGHTS + ".tmp")
    save_file(arrays, str(tmp), metadata=meta)
    os.replace(tmp, args.out / WEIGHTS)
    (args.out / TOKENIZER).write_text(tok.to_str())


# ---------------------------------------------------------------- evaluation

PROSE = (
    "My grandmother kept a small garden behind her house, and every spring she planted beans, "
    "onions and a long row of sunflowers along the fence. When I was a child I spent the summer "
    "holidays with her. We woke early, ate bread with butter and honey, and walked down to the "
    "river before the day grew hot. She knew the name of every bird we heard, and she taught me "
    "to listen for the difference between a thrush and a blackbird.\n\n"
    "In the afternoons the village was quiet. The baker closed his shop at noon, the old men sat "
    "in the shade of the church and talked about the weather, and the dogs slept in the dust of "
    "the road. I read books on the porch, one after another, until the light was too weak to see "
    "the page. Years later, when I moved to the city, I missed those long evenings more than "
    "anything else.\n\n"
    "The train to the coast leaves at seven in the morning and arrives a little after noon. If "
    "you travel in winter, bring a warm coat, because the wind near the sea is cold and the "
    "station has no waiting room. Most visitors stay for two or three days, walk along the "
    "cliffs, and eat fish in one of the small restaurants near the harbour."
)
WORDS = (
    "time year people way day man thing child state family group problem hand part place case "
    "week system program work number point fact month right word issue side kind head power line "
    "end member name body information back parent others level result change reason good new "
    "first last long little own other old big high different small large next important few "
    "public same able make take see know give find tell become show put begin keep hold write "
    "let mean set run sit lead read fall send build open consider appear wait expect stop call "
    "need want look use try start turn happen include continue add follow create order value "
    "list file data type string class object method function code table page text field key "
    "test sign step color form view model task event tree window woman world school student "
    "country company question government night home water room mother area money story"
).split()


def word_ids(tok: Tokenizer) -> np.ndarray:
    """Ids of the common WORDS that are one token with their leading space (" house")."""
    ids = [tok.encode(" " + w).ids for w in WORDS]
    return np.asarray(sorted({i[0] for i in ids if len(i) == 1}), dtype=np.int64)


def repeats(pool: np.ndarray, n: int, count: int, seed: int) -> np.ndarray:
    """(count, 2n) ids: n distinct ids of pool in a seeded order, then the same n again."""
    rng = np.random.default_rng(seed)
    firsts = np.stack([rng.choice(pool, n, replace=False) for _ in range(count)])
    return np.concatenate([firsts, firsts], 1)


def head_scores(a: np.ndarray, n_rep: int | None = None) -> dict:
    """Per head (H,) of A (H, T, T): prev_token, self, first (queries t >= 1), and
    induction (queries in the second half of a 2n repeat, key t - n + 1)."""
    t = np.arange(1, a.shape[-1])
    out = {
        "prev": a[:, t, t - 1].mean(-1),
        "self": a[:, t, t].mean(-1),
        "first": a[:, t, 0].mean(-1),
    }
    if n_rep is not None:
        q = np.arange(n_rep, 2 * n_rep)
        out["induction"] = a[:, q, q - n_rep + 1].mean(-1)
    return out


@torch.no_grad()
def measure(p: dict, ids: np.ndarray, n_rep: int | None = None) -> tuple[list, float, float]:
    """Mean head scores per layer over the rows of ids (B, T); the mean loss (nats/token);
    on repeats the share of second-half positions whose top prediction is the next token."""
    DEV = p["embed"].device
    logits, pats = forward(p, torch.from_numpy(ids).to(DEV), keep=True)
    tgt = torch.from_numpy(ids[:, 1:]).to(DEV)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), tgt.reshape(-1))
    acc = float("nan")
    if n_rep is not None:
        top = logits[:, n_rep:-1].argmax(-1)  # queries in the second half, but the last
        acc = (top == tgt[:, n_rep:]).float().mean().item()
    scores = []
    for a in pats:
        per_row = [head_scores(row.cpu().numpy(), n_rep) for row in a]
        scores.append({k: np.mean([r[k] for r in per_row], 0) for k in per_row[0]})
    return scores, loss.item(), acc


def quick_eval(p: dict, tok: Tokenizer) -> None:
    """Pilot figures: layer 0's prev_token on PROSE, layer 1's induction on repeats."""
    prose = np.asarray([tok.encode(PROSE).ids], dtype=np.int64)
    (s0, s1), loss, _ = measure(p, prose)
    (r0, r1), _, acc = measure(p, repeats(word_ids(tok), 40, 8, 1), 40)
    print(
        f"prose loss {loss:.3f}  prev L0 {np.round(s0['prev'], 2)}  "
        f"induction L1 {np.round(r1['induction'], 2)}  repeat top-1 {acc:.2f}",
        flush=True,
    )


def ngram_losses(stream: np.ndarray, ids: np.ndarray, vocab: int) -> dict:
    """Held-out nats/token of add-k unigram and bigram models fit on the training stream,
    each given its best k of (1, 0.1, 0.01) on ids (B, T); predicted tokens 1..T-1."""
    prev, nxt = ids[:, :-1].ravel(), ids[:, 1:].ravel()
    uni_counts = np.bincount(stream, minlength=vocab).astype(np.float64)
    pair = stream[:-1] * vocab + stream[1:]
    big = np.bincount(pair, minlength=vocab * vocab).reshape(vocab, vocab)
    out = {}
    for k in (1.0, 0.1, 0.01):
        uni = (uni_counts + k) / (uni_counts.sum() + k * vocab)
        bi = (big[prev, nxt] + k) / (big[prev].sum(1) + k * vocab)
        out[k] = (-np.log(uni[nxt]).mean(), -np.log(bi).mean())
    return {"unigram": min(v[0] for v in out.values()), "bigram": min(v[1] for v in out.values())}


def windows(stream: np.ndarray, n: int) -> np.ndarray:
    """(B, n): the stream cut into whole windows of n tokens."""
    b = len(stream) // n
    return stream[: b * n].reshape(b, n)


@torch.no_grad()
def model_loss(p: dict, ids: np.ndarray, chunk: int = 8) -> float:
    """Mean nats/token over ids (B, T), predicted tokens 1..T-1, a few rows at a time."""
    total = 0.0
    for i in range(0, len(ids), chunk):
        x = torch.from_numpy(ids[i : i + chunk]).to(p["embed"].device)
        logits, _ = forward(p, x[:, :-1])
        total += F.cross_entropy(logits.transpose(1, 2), x[:, 1:], reduction="sum").item()
    return total / (len(ids) * (ids.shape[1] - 1))


def loss_table(p: dict, tok: Tokenizer, stream: np.ndarray, held: np.ndarray) -> None:
    """Print held-out nats/token: model vs unigram and bigram baselines."""
    vocab = tok.get_vocab_size()
    prose = np.asarray([tok.encode(PROSE).ids], dtype=np.int64)
    print("\nheld-out loss, nats/token (predicted tokens 1..T-1 of each window)")
    print(f"{'text':<34}{'tokens':>8}{'model':>8}{'unigram':>9}{'bigram':>8}")
    for name, ids in (
        ("held-out docs, windows of 256", windows(held, 256)),
        ("held-out docs, windows of 1024", windows(held, 1024)),
        ("PROSE (plain English, not docs)", prose),
    ):
        base = ngram_losses(stream, ids, vocab)
        print(f"{name:<34}{ids.size:>8}{model_loss(p, ids):>8.3f}{base['unigram']:>9.3f}{base['bigram']:>8.3f}")


def head_table(p: dict, tok: Tokenizer, stream: np.ndarray, held: np.ndarray) -> None:
    """Print each head's prev/self/first on natural text and induction on repeats: of
    40 WORDS (one token each), and of 256 or 512 of the corpus's 1000 commonest words."""
    prose = np.asarray([tok.encode(PROSE).ids], dtype=np.int64)
    cases = [("PROSE", prose, None), ("held 1024", windows(held, 1024)[:4], None)]
    words, common = word_ids(tok), common_tokens(stream, tok)
    for n, count, pool in ((40, 16, words), (256, 4, common), (512, 2, common)):
        cases.append((f"rep {2 * n}", repeats(pool, n, count, n), n))
    results = [(name, *measure(p, ids, n)) for name, ids, n in cases]
    print("\nper head: mean attention (queries t >= 1; induction: second-half queries)")
    print(f"{'case':<11}{'head':<6}{'prev':>6}{'self':>6}{'first':>6}{'induct':>7}")
    for name, scores, _, _ in results:
        for layer, sc in enumerate(scores):
            for j in range(len(sc["prev"])):
                ind = f"{sc['induction'][j]:>7.2f}" if "induction" in sc else f"{'':>7}"
                row = f"{sc['prev'][j]:>6.2f}{sc['self'][j]:>6.2f}{sc['first'][j]:>6.2f}{ind}"
                print(f"{name:<11}{f'{layer}.{j}':<6}{row}")
    print("\nrepeats: share of second-half queries whose top prediction is the next token")
    for name, _, _, acc in results[2:]:
        print(f"{name:<11}{acc:>6.3f}")


def check_numpy(p: dict, tok: Tokenizer, held: np.ndarray) -> None:
    """The spec's NumPy forward against torch's, float32, on three sequences."""
    w = {k: t.detach().cpu().numpy() for k, t in p.items()}
    seqs = [tok.encode(PROSE).ids, repeats(word_ids(tok), 40, 1, 7)[0], windows(held, 1024)[0]]
    worst_logit = worst_a = 0.0
    for ids in seqs:
        ids = np.asarray(ids, dtype=np.int64)
        logits, pats = numpy_forward(w, ids)
        with torch.no_grad():
            t_logits, t_pats = forward(p, torch.from_numpy(ids[None]), keep=True)
        worst_logit = max(worst_logit, np.abs(logits - t_logits[0].numpy()).max())
        for a, ta in zip(pats, t_pats):
            worst_a = max(worst_a, np.abs(a - ta[0].numpy()).max())
    ok = worst_logit <= 1e-5 * max(1.0, np.abs(logits).max()) and worst_a <= 1e-5
    print(
        f"\nNumPy spec forward vs torch (float32, T = 330..1024): max |dlogit| {worst_logit:.2e}"
        f", max |dA| {worst_a:.2e}: {'ok' if ok else 'MISMATCH'}"
    )
    if not ok:
        sys.exit("error: the NumPy forward of the spec does not match torch")


def prepare(args) -> tuple:
    """Documents, tokenizer, train and held-out streams, with their sizes printed."""
    docs = load_documents(args.cache)
    train_docs, held_docs = split_documents(docs)
    tok = Tokenizer.from_file(str(args.tokenizer)) if args.tokenizer else train_tokenizer(train_docs)
    stream, held = token_stream(tok, train_docs), token_stream(tok, held_docs)
    chars = sum(map(len, train_docs)), sum(map(len, held_docs))
    print(
        f"corpus: {len(docs)} documents, train {len(train_docs)} ({chars[0]:,} chars, "
        f"{len(stream):,} tokens), held out {len(held_docs)} ({chars[1]:,} chars, "
        f"{len(held):,} tokens), vocab {tok.get_vocab_size()}",
        flush=True,
    )
    return tok, stream, held


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.init_shared and not args.init:
        print("error: --init-shared adds to the weights of --init; give --init", file=sys.stderr)
        sys.exit(2)
    torch.set_num_threads(args.threads)
    torch.backends.cuda.matmul.allow_tf32 = True  # on a GPU; the CPU and the exported weights stay float32
    torch.manual_seed(SEED)
    args.cache.mkdir(parents=True, exist_ok=True)
    tok, stream, held = prepare(args)
    if not args.eval_only:
        p = init_params(
            tok.get_vocab_size(), args.d_model, args.heads, torch.Generator().manual_seed(SEED), args.embed_shared
        )
        if args.init:
            init_from(p, args)
        p = {k: t.detach().to(args.device).requires_grad_() for k, t in p.items()}
        args.vocab = tok.get_vocab_size()
        prov = train(p, stream, repeat_pool(stream, tok, args), tok, args)
        print(f"trained {prov['steps']} steps in {prov['seconds']:.0f} s", flush=True)
        if args.skip_eval:
            return
    p = load_params(args.out)
    meta = safe_open_metadata(args.out / WEIGHTS)
    print(f"\nmodel: {args.out / WEIGHTS} ({meta['steps']} steps, {meta['train_seconds']} s)")
    check_numpy(p, tok, held)
    loss_table(p, tok, stream, held)
    head_table(p, tok, stream, held)


def safe_open_metadata(path: Path) -> dict:
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        return f.metadata()


def load_params(folder: Path) -> dict:
    return {k: torch.from_numpy(v) for k, v in load_file(str(folder / WEIGHTS)).items()}


if __name__ == "__main__":
    main()

"""Train the induction demo (attn_tui/core/models/induction.py) and write its weights.

    python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0 numpy
    PYTHONPATH=. /tmp/torchvenv/bin/python scripts/train_induction_demo.py   # ~1-3 min on 2 CPU cores

Seeded (torch.manual_seed, numpy default_rng) and on one thread, so the same torch version
writes the same weights. The model: token + position embeddings, two attention-only layers of
4 heads (d_k = 8) on a residual stream of width 32, an unembedding; the task: a random run of
n distinct letters (n from 4 to 16) and the same run again (core.models.induction.repeated_sequences),
the loss on the repeat's predictable tokens only. The NumPy forward in core/models/induction.py is the
same function (tests/core/test_heads_model.py compares them when torch is importable).
Writes attn_tui/core/models/induction_demo.npz (float32 weights, the vocabulary, the seed and
the training curve: loss every 100 steps, mean over the 100 steps before it).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import torch

from attn_tui.core.models.induction import VOCAB, WEIGHTS, repeated_sequences

D_MODEL, N_LAYERS, N_HEADS, D_K, N_CTX = 32, 2, 4, 8, 32
FILL = -1e9


def init(gen: torch.Generator) -> dict:
    """Weights with N(0, 1/fan_in) entries (embeddings N(0, 1)), requiring grad."""
    shapes = {
        "E": ((len(VOCAB), D_MODEL), 1.0),
        "P": ((N_CTX, D_MODEL), 1.0),
        "W_Q": ((N_LAYERS, N_HEADS, D_MODEL, D_K), D_MODEL),
        "W_K": ((N_LAYERS, N_HEADS, D_MODEL, D_K), D_MODEL),
        "W_V": ((N_LAYERS, N_HEADS, D_MODEL, D_K), D_MODEL),
        "W_O": ((N_LAYERS, N_HEADS, D_K, D_MODEL), N_HEADS * D_K),
        "W_U": ((D_MODEL, len(VOCAB)), D_MODEL),
    }
    return {
        k: (torch.randn(shape, generator=gen) / math.sqrt(fan)).requires_grad_() for k, (shape, fan) in shapes.items()
    }


def forward(w: dict, ids: torch.Tensor) -> torch.Tensor:
    """logits (B, T, vocab) of ids (B, T): the same steps as core.models.induction.forward."""
    T = ids.shape[1]
    x = w["E"][ids] + w["P"][:T]  # (B, T, d_model)
    M = torch.triu(torch.full((T, T), FILL), diagonal=1)
    for layer in range(N_LAYERS):
        Q = torch.einsum("btd,hdk->bhtk", x, w["W_Q"][layer])  # (B, H, T, d_k)
        K = torch.einsum("btd,hdk->bhtk", x, w["W_K"][layer])
        V = torch.einsum("btd,hdk->bhtk", x, w["W_V"][layer])
        A = torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(D_K) + M, dim=-1)  # (B, H, T, T)
        x = x + torch.einsum("bhtk,hkd->btd", A @ V, w["W_O"][layer])
    return x @ w["W_U"]


def loss_on_repeat(w: dict, ids: np.ndarray, n: np.ndarray) -> torch.Tensor:
    """Mean cross-entropy (nats) over the repeat's predictable positions t in n..2n-2."""
    logits = forward(w, torch.from_numpy(ids))
    t = np.arange(N_CTX - 1)[None, :]
    keep = torch.from_numpy((t >= n[:, None]) & (t <= 2 * n[:, None] - 2))
    target = torch.from_numpy(ids[:, 1:])
    ce = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), target, reduction="none")
    return ce[keep].mean()


def train(seed: int, steps: int, batch: int, lr: float):
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    w = init(gen)
    opt = torch.optim.Adam(w.values(), lr=lr)
    curve, window = [], []
    for step in range(1, steps + 1):
        ids, n = repeated_sequences(rng, batch, N_CTX)
        loss = loss_on_repeat(w, ids, n)
        opt.zero_grad()
        loss.backward()
        opt.step()
        window.append(loss.item())
        if step % 100 == 0:
            curve.append((step, float(np.mean(window))))
            window = []
            print(f"step {step:5d}  loss {curve[-1][1]:.4f} nats", flush=True)
    return w, np.array(curve)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--out", type=Path, default=WEIGHTS)
    a = p.parse_args()
    w, curve = train(a.seed, a.steps, a.batch, a.lr)
    arrays = {k: v.detach().numpy().astype(np.float32) for k, v in w.items()}
    np.savez(
        a.out,
        **arrays,
        vocab=np.array(VOCAB),
        seed=np.array(a.seed),
        steps=np.array(a.steps),
        batch=np.array(a.batch),
        lr=np.array(a.lr),
        curve=curve.astype(np.float32),
    )
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

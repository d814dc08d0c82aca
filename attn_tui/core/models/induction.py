"""The induction demo: a two-layer, attention-only transformer over the letters a..z, in NumPy.

    x⁰ = E[tokens] + P[:T]                                   (T, d_model)
    xˡ⁺¹ = xˡ + Σ_h softmax(Q_h K_hᵀ / √d_k + M) V_h W_O^(h)  Q_h = xˡ W_Q^(h), K_h = xˡ W_K^(h), V_h = xˡ W_V^(h)
    logits = x^L W_U                                          (T, vocab)

M is the causal mask (-1e9 above the diagonal, the lesson's fill). No layer norm, no MLP, no
biases: every number a learner sees is one of these products (so a Run's final_scale is 1). The weights are trained by
scripts/train_induction_demo.py (torch, seeded) on sequences whose second half repeats the
first (``repeated_sequences``), and ship as induction_demo.npz beside this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..attention import softmax
from .run import HeadShapes, Layers, Run, causal_fill
from .tokenizer import InputError, Letters

if TYPE_CHECKING:
    from typing import Any

VOCAB = tuple("abcdefghijklmnopqrstuvwxyz")
WEIGHTS = Path(__file__).with_name("induction_demo.npz")
WEIGHT_NAMES = ("E", "P", "W_Q", "W_K", "W_V", "W_O", "W_U")


@dataclass(frozen=True, eq=False)
class Model(HeadShapes):
    """Weights, float64 copies of what ships (float32).

    E (vocab, d_model), P (n_ctx, d_model), W_Q, W_K, W_V (L, H, d_model, d_k),
    W_O (L, H, d_k, d_model), W_U (d_model, vocab)."""

    E: np.ndarray
    P: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    W_U: np.ndarray
    vocab: tuple[Any, ...] = VOCAB

    @property
    def n_ctx(self) -> int:
        return self.P.shape[0]

    @property
    def tokenizer(self) -> Letters:
        return Letters(self.vocab)

    def forward(self, ids: np.ndarray) -> Run:
        return forward(self, ids)

    def part_logits(self, part: np.ndarray, final_scale: np.ndarray) -> np.ndarray:
        """A part of the residual stream (..., T, d_model) read out as logits (..., T, vocab): x W_U
        (no final layer norm; final_scale is 1). The parts of a Run sum to its logits."""
        return part @ self.W_U


def load_model(path: str | Path = WEIGHTS) -> Model:
    """The model whose weights are in the .npz ``path`` (the shipped one by default)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: np.asarray(z[k], dtype=np.float64) for k in WEIGHT_NAMES}
        vocab = tuple(z["vocab"].tolist()) if "vocab" in z.files else VOCAB
    for a in arrays.values():
        a.setflags(write=False)
    return Model(**arrays, vocab=vocab)


@cache
def shipped_model() -> Model:
    """The shipped induction-demo model, loaded once."""
    return load_model()


def encode(model: Model, text: str) -> np.ndarray:
    """Token ids (T,) of space-separated tokens of the model's vocabulary; InputError (one line) naming
    the first unknown token (counted from 1), or a sequence longer than the model's positions."""
    ids = model.tokenizer.encode(text).ids
    check_length(len(ids), model.n_ctx)
    return ids


def check_length(T: int, n_ctx: int) -> None:
    """InputError when T tokens are more than the model's n_ctx positions."""
    if T > n_ctx:
        raise InputError(f"{T:,} tokens; the model has {n_ctx:,} positions")


def forward(model: Model, ids: np.ndarray) -> Run:
    """The forward pass over token ids (T,), every head of every layer kept."""
    ids = np.asarray(ids)
    T, L = len(ids), model.n_layers
    x = model.E[ids] + model.P[:T]  # (T, d_model)
    M = causal_fill(T)
    out = Layers(L, model.n_heads, T, model.d_k, x.shape[1])
    out.resid[0] = x
    for layer in range(L):
        Q = np.einsum("td,hdk->htk", x, model.W_Q[layer])  # (H, T, d_k)
        K = np.einsum("td,hdk->htk", x, model.W_K[layer])
        V = np.einsum("td,hdk->htk", x, model.W_V[layer])
        A = softmax(Q @ K.transpose(0, 2, 1) * model.scale + M)  # (H, T, T)
        O = A @ V  # (H, T, d_k)
        x = x + np.einsum("htk,hkd->td", O, model.W_O[layer])  # Σ_h O_h W_O^(h)
        out.Q[layer], out.K[layer], out.V[layer], out.A[layer], out.O[layer], out.resid[layer + 1] = Q, K, V, A, O, x
        out.head_out[layer] = np.einsum("htk,hkd->htd", O, model.W_O[layer])  # each O_h W_O^(h)
    return out.run(ids, np.ones(T), x @ model.W_U)


def repeated_sequences(
    rng: np.random.Generator, batch: int, n_ctx: int, vocab: int = len(VOCAB), n_min: int = 4, n_max: int | None = None
) -> Any:
    """The task: (ids (B, n_ctx), n (B,)). Row b holds n[b] distinct random letters, the same
    n[b] letters again, then random letters to fill n_ctx (a causal model never reads them
    when predicting inside the repeat). n is uniform in n_min..n_max (default n_ctx // 2).

    The predictable targets are the repeat's: position t (0-based) in n..2n-2 predicts
    ids[t + 1] = ids[t + 1 - n]."""
    n_max = n_ctx // 2 if n_max is None else n_max
    n = rng.integers(n_min, n_max + 1, size=batch)
    first = np.argsort(rng.random((batch, vocab)), axis=1)  # a random order of the letters per row
    ids = rng.integers(0, vocab, size=(batch, n_ctx))
    for b in range(batch):
        k = int(n[b])
        ids[b, :k] = first[b, :k]
        ids[b, k : 2 * k] = first[b, :k]
    return ids, n

"""The text model: a two-layer, attention-only transformer over a byte-level BPE, in NumPy.

    x⁰ = embed[ids]                                                  (T, d_model), no positions added
    h = LN(xˡ; lnˡ)          LN(x; w) = (x − mean x) / √(var x + ε) · w  (population var, no bias)
    Q_j, K_j, V_j = h W_Q^(j), h W_K^(j), h W_V^(j); Q_j, K_j = rope(Q_j), rope(K_j)   (T, d_head)
    xˡ⁺¹ = xˡ + Σ_j softmax(Q_j K_jᵀ / √d_head + M) V_j W_O^(j)
    logits = LN(x^L; ln_final) unembed                               (T, vocab)

RoPE is GPT-NeoX's rotate_half over positions 0..T-1 with base rope_base. The weights and the
tokenizer ship beside this file (text_model.safetensors, text_tokenizer.json; trained by
scripts/train_text_model.py, described in docs/TEXT_MODEL.md); the contract of their keys and
metadata is the trainer's and this module's (``FORMAT``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..attention import softmax
from .run import HeadShapes, Layers, Run, causal_fill
from .tokenizer import BytePairs

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

HERE = Path(__file__).parent
WEIGHTS = HERE / "text_model.safetensors"
TOKENIZER = HERE / "text_tokenizer.json"
FORMAT = "attn-tui-text-model-1"
MAX_WEIGHTS_BYTES = 64 * 2**20  # a file above this is not the model this module reads


@dataclass(frozen=True, eq=False)
class TextModel(HeadShapes):
    """Weights, float64 copies of what ships (float32). embed (V, d); ln (L, d); W_Q, W_K, W_V
    (L, H, d, d_head); W_O (L, H, d_head, d); ln_final (d,); unembed (d, V)."""

    embed: np.ndarray
    ln: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    ln_final: np.ndarray
    unembed: np.ndarray
    n_ctx: int
    rope_base: float
    eps: float
    tokenizer: object = None  # a BytePairs, when loaded with its tokenizer
    meta: dict[Any, Any] | None = None

    def forward(self, ids: np.ndarray) -> Run:
        return forward(self, ids)

    def part_logits(self, part: np.ndarray, final_scale: np.ndarray) -> np.ndarray:
        """A part of the residual stream (..., T, d) read out as logits (..., T, V) with the final layer
        norm's 1/σ held at ``final_scale`` (T,): ((p − mean p) · 1/σ · ln_final) unembed. The embedding's
        and every head's parts of a Run sum to its logits."""
        centred = part - part.mean(axis=-1, keepdims=True)
        return (centred * final_scale[:, None] * self.ln_final) @ self.unembed


def layer_norm(x: np.ndarray, w: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(LN(x; w) (T, d), 1/σ (T,)): population variance, no bias."""
    centred = x - x.mean(axis=-1, keepdims=True)
    inv = 1.0 / np.sqrt((centred * centred).mean(axis=-1) + eps)
    return centred * inv[:, None] * w, inv


@cache
def _rope_tables(T: int, d_head: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """(cos, sin) (T, d_head) of positions 0..T-1, each half repeated (rotate_half's layout)."""
    inv_freq = base ** (-np.arange(0, d_head // 2, dtype=np.float64) * 2 / d_head)
    ang = np.arange(T, dtype=np.float64)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    out = np.concatenate([cos, cos], axis=1), np.concatenate([sin, sin], axis=1)
    for a in out:
        a.setflags(write=False)
    return out


def rope(x: np.ndarray, base: float) -> np.ndarray:
    """GPT-NeoX rotary embedding of x (H, T, d_head): x·cos + rotate_half(x)·sin."""
    T, d = x.shape[-2:]
    cos, sin = _rope_tables(T, d, float(base))
    half = d // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def forward(model: TextModel, ids: np.ndarray) -> Run:
    """The forward pass over token ids (T,), every head of every layer kept (float64)."""
    ids = np.asarray(ids)
    T, d = len(ids), model.embed.shape[1]
    M = causal_fill(T)
    out = Layers(model.n_layers, model.n_heads, T, model.d_k, d)
    x = out.resid[0]
    x[:] = model.embed[ids]  # (T, d)
    for layer in range(model.n_layers):
        h, _ = layer_norm(x, model.ln[layer], model.eps)
        # matmul broadcasts h (T, d) over the heads' (H, d, d_head): BLAS, where einsum looped in C (4x slower)
        Q = rope(h @ model.W_Q[layer], model.rope_base)  # (H, T, d_head)
        K = rope(h @ model.W_K[layer], model.rope_base)
        V = np.matmul(h, model.W_V[layer], out=out.V[layer])
        A = softmax(Q @ K.transpose(0, 2, 1) * model.scale + M)  # (H, T, T)
        O = np.matmul(A, V, out=out.O[layer])
        np.matmul(O, model.W_O[layer], out=out.head_out[layer])  # (H, T, d): each head's O_j W_O^(j)
        out.Q[layer], out.K[layer], out.A[layer] = Q, K, A
        x = np.add(x, out.head_out[layer].sum(axis=0), out=out.resid[layer + 1])
    final, inv = layer_norm(x, model.ln_final, model.eps)
    return out.run(ids, inv, final @ model.unembed)


def load_text_model(weights: Any = WEIGHTS, tokenizer: Any = TOKENIZER) -> TextModel:
    """The model in ``weights`` (safetensors, float32, the FORMAT contract) with the tokenizer in
    ``tokenizer`` (a `tokenizers` JSON; None: no tokenizer). ValueError: one line naming the file."""
    from .text_file import read_weights

    arrays, meta = read_weights(Path(weights), FORMAT, MAX_WEIGHTS_BYTES)
    L = int(meta["n_layers"])
    stack: Callable[[str], np.ndarray] = lambda name: np.stack([arrays[f"layers.{i}.{name}"] for i in range(L)])  # noqa: E731
    tok = None if tokenizer is None else BytePairs(Path(tokenizer).read_text(encoding="utf-8"))
    model = TextModel(
        embed=arrays["embed"],
        ln=stack("ln"),
        W_Q=stack("W_Q"),
        W_K=stack("W_K"),
        W_V=stack("W_V"),
        W_O=stack("W_O"),
        ln_final=arrays["ln_final"],
        unembed=arrays["unembed"],
        n_ctx=int(meta["n_ctx"]),
        rope_base=float(meta["rope_base"]),
        eps=float(meta["ln_eps"]),
        tokenizer=tok,
        meta=meta,
    )
    for a in (model.embed, model.ln, model.W_Q, model.W_K, model.W_V, model.W_O, model.ln_final, model.unembed):
        a.setflags(write=False)
    return model


@cache
def shipped_text_model() -> TextModel:
    """The shipped text model and its tokenizer, loaded once (ValueError: not shipped, or unreadable)."""
    return load_text_model()

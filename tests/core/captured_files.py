"""A captured file with the model's own prediction, made here without torch: a tiny causal "model" of
random Q, K, V, W_O written by the capture's own writer (LayerFile, one layer at a time, the top_* arrays
whole at the end), with logits over a vocabulary of a few labels, their top k, and a top_readout.
``hostile`` replaces or removes one array or setting to make a file every door must refuse."""

from __future__ import annotations

import json

import numpy as np

from attn_tui.core.heads.layer_file import LayerFile

TOKENS = ("q", "w", "e", "r", "q", "w", "e", "r")
VOCAB = ("q", "w", "e", "r", "t", "y", " the", ".", "a", "b", "c", "d")
K = 10


def top_arrays(T: int, d: int, seed: int = 1) -> tuple[dict, np.ndarray]:
    """(the top_* arrays, the logits (T, V) they were read from): p the softmax over every label."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 2, (T, len(VOCAB)))
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    order = np.argsort(-logits, axis=1, kind="stable")[:, :K]
    arrays = {
        "top_ids": order.astype(np.int32),
        "top_p": np.take_along_axis(p, order, 1).astype(np.float32),
        "top_logit": np.take_along_axis(logits, order, 1).astype(np.float32),
        "top_readout": rng.normal(0, 1, (T, d)).astype(np.float32),
    }
    return arrays, logits


def write_captured(path, *, L=2, H=2, d_k=4, d=8, hostile=None, about=None) -> dict:
    """Write the file at ``path``; returns every array ({"Q": (L, H, T, d_k), ..., "top_p": (T, k), ...}).
    ``hostile``: {name: array or None (left out)} over the arrays and the setting top_tokens;
    ``about``: the provenance's "prediction" (default: LayerNorm, all heads)."""
    rng = np.random.default_rng(0)
    T = len(TOKENS)
    layers = {
        "Q": rng.normal(0, 1, (L, H, T, d_k)),
        "K": rng.normal(0, 1, (L, H, T, d_k)),
        "V": rng.normal(0, 1, (L, H, T, d_k)),
        "W_O": rng.normal(0, 0.5, (L, H * d_k, d)),
    }
    top, _ = top_arrays(T, d)
    settings = {
        "tokens": list(TOKENS),
        "mask": "causal",
        "top_tokens": list(VOCAB),
        "provenance": {"model": "made-here", "prediction": about or {"k": K, "by_head": None, "centred": True}},
    }
    for name, value in (hostile or {}).items():
        for where in (layers, top, settings):
            if name in where or (where is settings and name == "top_tokens"):
                if value is None:
                    where.pop(name, None)
                else:
                    where[name] = value
                break
    open(path, "wb").close()
    with LayerFile(path, L, 2**16) as f:
        for ly in range(L):
            f.add(ly, {k: v[ly].astype(np.float32) for k, v in layers.items()})
        f.finish({k: json.dumps(v) for k, v in settings.items()}, top)
    return layers | top


def own_shares(a: dict, t: int) -> np.ndarray:
    """(L, H) each head's write at t, centred, dotted with top_readout[t]: the numbers, from the arrays."""
    L, H, T, d_k = a["Q"].shape
    u = a["top_readout"][t].astype(np.float64)
    out = np.zeros((L, H))
    for ly in range(L):
        for h in range(H):
            s = a["Q"][ly, h, t] @ a["K"][ly, h, : t + 1].T / np.sqrt(d_k)  # causal: keys 0..t
            w = np.exp(s - s.max())
            w /= w.sum()
            o = (w @ a["V"][ly, h, : t + 1]) @ a["W_O"][ly, h * d_k : (h + 1) * d_k]
            out[ly, h] = (o - o.mean()) @ u
    return out

"""Writing multi-head scenario files (the format of multihead_io): np.savez or safetensors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .source import HeadSource


def _mask_text(kind, window):
    return f"window:{window}" if kind == "window" else kind


def save_heads(path, Q, K, V, *, W_O=None, A=None, M=None, compressed=False, **settings) -> Path:
    """Write Q (L, H, T, d_k), K (L, H_kv, T', d_k), V (L, H_kv, T', d_v) and the optional W_O, A, M
    to ``path`` (.npz or .safetensors, by its suffix). ``settings``: tokens, key_tokens, kv_head,
    scale, mask, source, title (multihead_io's names); None values are left out."""
    path = Path(path)
    arrays = {"Q": Q, "K": K, "V": V, "W_O": W_O, "A": A, "M": M}
    arrays = {k: np.ascontiguousarray(a) for k, a in arrays.items() if a is not None}
    settings = {k: v for k, v in settings.items() if v is not None}
    if path.suffix.lower() == ".safetensors":
        from safetensors.numpy import save_file  # only this writer needs it

        meta = {k: v if k in ("title", "source") else json.dumps(v) for k, v in settings.items()}
        save_file(arrays, str(path), metadata=meta)
    else:
        small = {k: np.array(json.dumps(v) if isinstance(v, dict) else v) for k, v in settings.items()}  # no pickles
        (np.savez_compressed if compressed else np.savez)(path, **arrays, **small)
    return path


def save_source(src: HeadSource, path, **kw) -> Path:
    """Every head of ``src`` (read head by head) written to ``path``; A and W_O kept when held."""
    L, H, H_kv = src.n_layers, src.n_heads, src.n_kv_heads
    Q = np.stack([np.stack([src.read("Q", ly, h) for h in range(H)]) for ly in range(L)])
    K = np.stack([np.stack([src.read("K", ly, h) for h in range(H_kv)]) for ly in range(L)])
    V = np.stack([np.stack([src.read("V", ly, h) for h in range(H_kv)]) for ly in range(L)])
    extra = {}
    if src.has("A"):
        extra["A"] = np.stack([np.stack([src.read("A", ly, h) for h in range(H)]) for ly in range(L)])
    if src.has("W_O"):
        extra["W_O"] = np.stack([src.read("W_O", ly) for ly in range(L)])
    if src.has("M"):
        extra["M"] = np.stack([src.read("M", ly) for ly in range(L)])
    return save_heads(
        path,
        Q,
        K,
        V,
        **extra,
        tokens=list(src.tokens),
        key_tokens=list(src.key_tokens) or None,
        kv_head=list(src.kv_head),
        scale=list(src.scales),
        mask=[_mask_text(*m) for m in src.masks],
        source=src.source or None,
        title=src.title,
        raw_tokens=list(src.raw_tokens) or None,
        provenance=src.provenance or None,
        **kw,
    )

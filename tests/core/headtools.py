"""What the tests build from the package's multi-head API (none of it is used by the package itself): a
source written back to a file, one head's own-weights check, the blocked cells a mask kind names."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attn_tui.core.attention import blocked_cells
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.source import HeadSource, own_weights_diffs


def implied_mask(kind: str, T: int, T_k: int) -> np.ndarray:
    """The blocked cells (T, T') of a mask kind (mask_kind's names), True where a key is hidden."""
    if kind in ("none", "causal"):
        return blocked_cells(kind, T, T_k)
    if kind.startswith("window:"):
        return blocked_cells("window", T, T_k, window=int(kind[7:]))
    raise ValueError(f"mask: {kind!r} has no implied pattern")


def own_weights_diff(src: HeadSource, layer: int, head: int, qkv=None, rows: int = 64) -> float | None:
    """max |A computed - A the model reported| over one head (None when the source holds no A)."""
    if not src.has("A"):
        return None
    Q, K = (src.qkv(layer, head) if qkv is None else qkv)[:2]
    return float(own_weights_diffs(src, layer, (Q, K), [head], rows)[0])


def mask_text(kind, window):
    """A source's (kind, window) as a file writes it: "window:W", else the kind."""
    return f"window:{window}" if kind == "window" else kind


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
        mask=[mask_text(*m) for m in src.masks],
        source=src.source or None,
        title=src.title,
        raw_tokens=list(src.raw_tokens) or None,
        provenance=src.provenance or None,
        **kw,
    )

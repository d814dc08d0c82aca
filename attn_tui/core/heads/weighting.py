"""What a head moves, not only where it looks: value-weighted and info-weighted attention.

The lesson's last line is O = A V: row t of O is Σ_j A[t, j] v_j. A weight on a key whose value is
tiny moves almost nothing (a first-token "attention sink" with a near-zero value). So each key's
weight is scaled by the size of what it would carry, relative to the largest:

    A_vw[t, j] = A[t, j] · ‖v_j‖ / max_k ‖v_k‖                  value-weighted (used by, e.g., Wang et al. 2022, IOI)
    A_iw[t, j] = A[t, j] · ‖v_j W_O^(h)‖ / max_k ‖v_k W_O^(h)‖  info-weighted (McDougall et al. 2023, Copy Suppression)

Kobayashi et al. (2020) measure ‖A[t, j] v_j W_O^(h)‖ (through W_O, unnormalised): A_iw times
max_k ‖v_k W_O^(h)‖, one number a head. CircuitsVis and BertViz compute neither: they draw the
tensor they are given.

W_O^(h) (d_v, d_model): the head's d_v rows of the layer's W_O (combine.py), so ‖v_j W_O^(h)‖ is the
size of what key j writes into the model's output, not only into this head's d_v columns.
Both are ≤ A cell by cell, so a row sums to at most 1: less wherever it looks at keys whose
vectors are smaller than the largest one. A NaN row (every key masked) stays NaN.

The scale is one number per key, (T',), computed once per head; weighing one row, a block of rows
or a whole head is then one multiply (``weigh``), cheap enough for a screen to call per row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.heads.source import HeadSource

KINDS = ("A", "value", "info")  # what the explorer's weighting key cycles through, in order
NAMES = {"A": "A", "value": "value-weighted A", "info": "info-weighted A"}
JSON_KEYS = {"value": "A_value_weighted", "info": "A_info_weighted"}
WHY = {
    "A": "",
    "value": "each weight × ‖v_j‖ / max ‖v‖: rows sum to < 1 where they look at keys with smaller values",
    "info": "each weight × ‖v_j W_O^(h)‖ / max: rows sum to < 1 where they look at keys that write less",
}


def value_norms(V: np.ndarray) -> np.ndarray:
    """(T',) ‖v_j‖ of each row of V (T', d_v), in float64."""
    return np.linalg.norm(np.asarray(V, np.float64), axis=-1)


def head_w_o(W_O: np.ndarray, n_heads: int, head: int) -> np.ndarray:
    """(d_v, d_model) W_O^(h): rows head·d_v … (head+1)·d_v − 1 of a layer's W_O (H·d_v, d_model)."""
    W_O = np.asarray(W_O, np.float64)
    d_v = W_O.shape[0] // n_heads
    return W_O[head * d_v : (head + 1) * d_v]


def info_norms(V: np.ndarray, W_O_h: np.ndarray) -> np.ndarray:
    """(T',) ‖v_j W_O^(h)‖: the size of what key j's value writes into the model's output."""
    return np.linalg.norm(np.asarray(V, np.float64) @ np.asarray(W_O_h, np.float64), axis=-1)


def key_scale(norms: Any) -> np.ndarray:
    """(T',) norms / max norms, each in [0, 1]; all 0 when every vector is 0 (nothing is moved).
    A non-finite norm (an overflowed value) is treated as 0: it cannot be compared."""
    n = np.asarray(norms, np.float64)
    n = np.where(np.isfinite(n), n, 0.0)
    top = float(n.max(initial=0.0))
    return n / top if top > 0 else np.zeros_like(n)


def weigh(A: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """A (..., T') times each key's scale (T',): one row, a block of rows, a head or a stack of
    heads. NaN rows stay NaN; a row sums to at most 1.

    >>> weigh(np.array([[0.5, 0.5]]), np.array([1.0, 0.2])).round(2).tolist()
    [[0.5, 0.1]]
    """
    return np.asarray(A, np.float64) * np.asarray(scale, np.float64)


def scale_for(kind: str, V: np.ndarray, W_O_h: np.ndarray | None = None) -> np.ndarray | None:
    """The (T',) key scale of ``kind`` ("A": all ones; "value"; "info": None without W_O^(h))."""
    if kind not in KINDS:
        raise ValueError(f"weighting: {kind!r} is not one of {', '.join(KINDS)}")
    if kind == "A":
        return np.ones(np.shape(V)[0])
    if kind == "value":
        return key_scale(value_norms(V))
    return None if W_O_h is None else key_scale(info_norms(V, W_O_h))


def source_w_o(src: HeadSource, layer: int, head: int) -> np.ndarray | None:
    """W_O^(h) of head ``head`` of ``layer`` of a HeadSource, or None when it holds no W_O."""
    if not src.has("W_O"):
        return None
    return head_w_o(src.read("W_O", layer), src.n_heads, head)


def head_scale(src: HeadSource, layer: int, head: int, kind: str) -> np.ndarray | None:
    """The (T',) key scale of ``kind`` for one head of a HeadSource (None: info without W_O)."""
    V = src.read("V", layer, src.kv_head[head])
    return scale_for(kind, V, source_w_o(src, layer, head) if kind == "info" else None)


def available(kind: str, has_w_o: bool) -> bool:
    """Whether ``kind`` can be shown: info-weighted needs the source's W_O."""
    return kind != "info" or has_w_o


def next_kind(kind: str, has_w_o: bool) -> str:
    """The kind after ``kind`` in KINDS, skipping info-weighted when there is no W_O."""
    i = KINDS.index(kind)
    for step in range(1, len(KINDS) + 1):
        k = KINDS[(i + step) % len(KINDS)]
        if available(k, has_w_o):
            return k
    return "A"

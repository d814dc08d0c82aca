"""The multi-head combine of one layer, with its identity checked numerically:

    concat(O_1, …, O_H) W_O = Σ_h O_h W_O^(h)       O_h = A_h V_h (T, d_v), W_O (H·d_v, d_model)

W_O^(h) is rows h·d_v … (h+1)·d_v − 1 of W_O: the block of the projection that reads head h's
columns of the concatenation. Rows are computed in blocks, so no T x T' matrix is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..limits import MAX_DIM
from .readings import ROWS
from .source import HeadSource, check_head


@dataclass(frozen=True)
class Combine:
    """The layer's two sides, concat W_O and Σ_h O_h W_O^(h): the output and their largest difference."""

    layer: int
    output: np.ndarray | None  # (T, d_model) concat(O_1..O_H) W_O, kept up to MAX_DIM query rows (for a pane)
    max_abs_diff: float
    tolerance: float  # 2 n eps max_t,k Σ_j |O_tj| |W_O jk|, n = H·d_v: the float64 rounding bound of both sides

    @property
    def holds(self) -> bool:
        return self.max_abs_diff <= self.tolerance


def combine(src: HeadSource, layer: int) -> Combine | None:
    """The combine of ``layer`` (None when the source holds no W_O)."""
    check_head(src, layer)
    if not src.has("W_O"):
        return None
    W_O = src.read("W_O", layer)  # (H·d_v, d_model)
    H = src.n_heads
    d_v = W_O.shape[0] // H
    heads = [(src.weights_block(layer, h, qkv), qkv[2]) for h in range(H) for qkv in [src.qkv(layer, h)]]
    diff = bound = 0.0
    rows = []
    for r0 in range(0, src.T, ROWS):
        r1 = min(src.T, r0 + ROWS)
        O = [block(r0, r1)[0] @ V for block, V in heads]  # H x (rows, d_v)
        concat = np.concatenate(O, axis=1) @ W_O  # (rows, d_model)
        summed = sum(O[h] @ W_O[h * d_v : (h + 1) * d_v] for h in range(H))
        if src.T <= MAX_DIM:
            rows.append(concat)
        diff = max(diff, float(np.nanmax(np.abs(concat - summed), initial=0.0)))
        bound = max(bound, float(np.nanmax(np.abs(np.concatenate(O, axis=1)) @ np.abs(W_O), initial=0.0)))
    output = np.vstack(rows) if rows else None
    return Combine(layer, output, diff, tolerance=2 * H * d_v * float(np.finfo(np.float64).eps) * bound)

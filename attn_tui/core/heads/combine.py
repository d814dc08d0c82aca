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

COMBINE_BYTES = 64 * 2**20  # the heads' Q, K, V held at once by combine (a group of heads beyond)


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
    H, T = src.n_heads, src.T
    d_v = W_O.shape[0] // H
    concat, summed, bounds = (np.zeros((T, W_O.shape[1])) for _ in range(3))  # each side, and |O| |W_O|, by row
    group = max(1, COMBINE_BYTES // (8 * (T * src.d_k + src.T_k * (src.d_k + d_v))))  # heads whose Q, K, V fit
    for g0 in range(0, H, group):  # all heads at once unless they are hundreds of MiB (then the sums by group)
        hs = range(g0, min(H, g0 + group))
        heads = [(src.weights_block(layer, h, qkv), qkv[2]) for h in hs for qkv in [src.qkv(layer, h)]]
        W_g = W_O[g0 * d_v : hs.stop * d_v]
        for r0 in range(0, T, ROWS):
            r1 = min(T, r0 + ROWS)
            O = [block(r0, r1)[0] @ V for block, V in heads]  # len(hs) x (rows, d_v)
            cat = np.concatenate(O, axis=1)
            concat[r0:r1] += cat @ W_g  # (rows, d_model)
            summed[r0:r1] += sum(O[i] @ W_g[i * d_v : (i + 1) * d_v] for i in range(len(hs)))
            bounds[r0:r1] += np.abs(cat) @ np.abs(W_g)
    output = concat if T <= MAX_DIM else None
    diff = float(np.nanmax(np.abs(concat - summed), initial=0.0))
    bound = float(np.nanmax(bounds, initial=0.0))
    return Combine(layer, output, diff, tolerance=2 * H * d_v * float(np.finfo(np.float64).eps) * bound)

"""The multi-head combine of one layer, with its identity checked numerically:

    concat(O_1, …, O_H) W_O = Σ_h O_h W_O^(h)       O_h = A_h V_h (T, d_v), W_O (H·d_v, d_model)

W_O^(h) is rows h·d_v … (h+1)·d_v − 1 of W_O: the block of the projection that reads head h's
columns of the concatenation. Rows are computed in blocks, so no T x T' matrix is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..limits import DENSE_MAX
from .readings import ROWS
from .source import HeadSource, check_head

if TYPE_CHECKING:
    from typing import Any

COMBINE_BYTES = 64 * 2**20  # the heads' Q, K, V held at once by combine (a group of heads beyond)


@dataclass(frozen=True)
class Combine:
    """The layer's two sides, concat W_O and Σ_h O_h W_O^(h): the output and their largest difference."""

    layer: int
    output: np.ndarray | None  # (T, d_model) concat(O_1..O_H) W_O, kept up to DENSE_MAX query rows (for a pane)
    max_abs_diff: float
    tolerance: float  # 2 n eps max_t,k Σ_j |O_tj| |W_O jk|, n = H·d_v: the float64 rounding bound of both sides

    @property
    def holds(self) -> bool:
        return self.max_abs_diff <= self.tolerance


def combine(src: HeadSource, layer: int) -> Combine | None:
    """The combine of ``layer`` (None when the source holds no W_O). It holds W_O, a group of heads'
    Q, K, V (COMBINE_BYTES) and the three sums of a chunk of query rows (COMBINE_BYTES): never a
    T x d_model array above DENSE_MAX tokens, so a file of 16,384 tokens x d_model 16,384 opens."""
    check_head(src, layer)
    if not src.has("W_O"):
        return None
    W_O = src.read("W_O", layer)  # (H·d_v, d_model)
    H, T, d_model = src.n_heads, src.T, W_O.shape[1]
    d_v = W_O.shape[0] // H
    group = max(1, COMBINE_BYTES // (8 * (T * src.d_k + src.T_k * (src.d_k + d_v))))  # heads whose Q, K, V fit
    chunk = max(ROWS, COMBINE_BYTES // (3 * 8 * d_model) // ROWS * ROWS)  # query rows of the sums held
    kept = _group_reader(src, layer, H, group, once=group >= H)
    output = np.zeros((T, d_model)) if T <= DENSE_MAX else None
    diff = bound = 0.0
    for c0 in range(0, T, chunk):
        c1 = min(T, c0 + chunk)
        concat, summed, bounds = (np.zeros((c1 - c0, d_model)) for _ in range(3))  # each side, |O| |W_O|, by row
        for g0 in range(0, H, group):  # all heads at once unless they are hundreds of MiB (then the sums by group)
            heads = kept(g0)
            W_g = W_O[g0 * d_v : (g0 + len(heads)) * d_v]
            for r0 in range(c0, c1, ROWS):
                r1 = min(c1, r0 + ROWS)
                O = [block(r0, r1)[0] @ V for block, V in heads]  # len(heads) x (rows, d_v)
                cat = np.concatenate(O, axis=1)
                concat[r0 - c0 : r1 - c0] += cat @ W_g  # (rows, d_model)
                summed[r0 - c0 : r1 - c0] += sum(O[i] @ W_g[i * d_v : (i + 1) * d_v] for i in range(len(heads)))
                bounds[r0 - c0 : r1 - c0] += np.abs(cat) @ np.abs(W_g)
        diff = max(diff, float(np.nanmax(np.abs(concat - summed), initial=0.0)))
        bound = max(bound, float(np.nanmax(bounds, initial=0.0)))
        if output is not None:
            output[c0:c1] = concat
    return Combine(layer, output, diff, tolerance=2 * H * d_v * float(np.finfo(np.float64).eps) * bound)


def _group_reader(src: HeadSource, layer: int, H: int, group: int, once: bool) -> Any:
    """g0 -> [(weights_block, V)] of heads g0 .. g0 + group - 1: read once and kept when ``once`` (one
    group: the usual case), else read again for each chunk of rows."""
    cache: dict[Any, Any] = {}

    def heads(g0: Any) -> Any:
        if g0 in cache:
            return cache[g0]
        got = [
            (src.weights_block(layer, h, qkv), qkv[2])
            for h in range(g0, min(H, g0 + group))
            for qkv in [src.qkv(layer, h)]
        ]
        if once:
            cache[g0] = got
        return got

    return heads

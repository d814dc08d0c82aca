"""One layer's heads for a heads screen: each head's readings and a small picture of its A, both
from one pass over A's rows (in blocks of readings.ROWS), so 12 heads of T = 512 cost one
softmax each.

The picture ``thumb`` (n_r, n_c) pools A into at most ``bins`` x ``bins`` cells:

    thumb[a, b] = mean over the valid query rows t in row bin a of Σ_{i in key bin b} A[t, i]

the weight a row of bin a puts on the keys of bin b; each row of ``thumb`` sums to 1, and with
T, T' <= bins it is A itself. Each bin holds the same whole number of positions, the last fewer
(``edges``). A fully masked (NaN) row is left out of its bin's mean; a bin with no valid row is NaN.
With a ``weighting`` ("value", "info": weighting.py) the picture pools the weighted A, whose rows
sum to less than 1; the readings are always A's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .readings import Readings, head_readings
from .source import HeadSource, check_head
from .weighting import head_scale, weigh

if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True, eq=False)
class HeadView:
    """One head's readings (readings.py) and its pooled A (module doc), with the bin edges."""

    readings: Readings
    thumb: np.ndarray  # (n_r, n_c) float64 in [0, 1], rows summing to 1
    row_edges: np.ndarray  # (n_r + 1,) query positions (0-based) where each row bin starts, then T
    col_edges: np.ndarray  # (n_c + 1,) key positions, then T'


def edges(n: int, bins: int) -> np.ndarray:
    """(⌈n/k⌉ + 1,) the starts of bins of k = ⌈n/bins⌉ whole positions each over 0..n-1 (the last
    may hold fewer), then n: every cell of a picture holds the same k tokens, which the heads
    screen says ("a cell = 3×3 tokens"); k = 1, one position a bin, when n <= bins."""
    k = max(1, -(-n // max(bins, 1)))
    return np.append(np.arange(0, n, k), n).astype(np.int64)


def head_view(src: HeadSource, layer: int, head: int, bins: int = 16, weighting: str = "A") -> HeadView:
    """The readings and the pooled A (weighted by ``weighting``) of head ``head`` of ``layer`` (both from 0)."""
    check_head(src, layer, head)
    scale = None if weighting == "A" else head_scale(src, layer, head, weighting)
    re, ce = edges(src.T, bins), edges(src.T_k, bins)
    row_bin = np.searchsorted(re, np.arange(src.T), side="right") - 1  # (T,) the bin of each query row
    total = np.zeros((len(re) - 1, len(ce) - 1))
    count = np.zeros(len(re) - 1)
    block = src.weights_block(layer, head)

    def pooled(r0: int, r1: int) -> Any:
        A, seen = block(r0, r1)  # (r1 - r0, T')
        ok = ~np.isnan(A).any(axis=1)
        shown = A[ok] if scale is None else weigh(A[ok], scale)
        sums = np.add.reduceat(shown, ce[:-1], axis=1)  # (valid rows, n_c)
        np.add.at(total, row_bin[r0:r1][ok], sums)
        np.add.at(count, row_bin[r0:r1][ok], 1)
        return A, seen

    readings = head_readings(pooled, src.T, src.T_k, src.ids, layer, head)
    with np.errstate(invalid="ignore", divide="ignore"):
        thumb = np.where(count[:, None] > 0, total / count[:, None], np.nan)
    return HeadView(readings, thumb, re, ce)


def layer_view(src: HeadSource, layer: int, bins: int = 16, weighting: str = "A") -> list[HeadView]:
    """Every head of ``layer``, head 0 first."""
    check_head(src, layer)
    return [head_view(src, layer, h, bins, weighting) for h in range(src.n_heads)]

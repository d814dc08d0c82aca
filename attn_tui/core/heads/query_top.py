"""Where one query looks, in every head: the top keys of row t of each head's A, and how near uniform the row is.

For a query position t (0-based here, counted from 1 wherever it is shown), each head of a layer
gives a row A[t, :] (T',) of the model's own weights, softmax(scale · q_t Kᵀ + M_t), computed
from the source's Q and K (HeadSource.scores_block, a head at a time: one row, never a T x T'
matrix, nor every head's Q and K at once). ``top_keys`` orders a row's keys by weight; ``query_tops``
gives the top few of every head of one layer or of every layer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .source import HeadSource, check_head

TOP = 5  # keys listed per head (BertViz's model view, one line a head)
# A row whose entropy is within this share of its ceiling (log2 of the keys it sees) is near uniform:
# its heaviest keys are barely heavier than the rest, and what they are to the query says little.
NEAR_UNIFORM = 0.05


class HeadTop(NamedTuple):
    """Row t of head ``layer``.``head``: its top keys as (position from 0, weight), heaviest first;
    the row's entropy H(A_t) in bits and its ceiling, log2 of the keys it sees (NaN: every key masked)."""

    layer: int
    head: int
    top: tuple  # ((j, weight), ...)
    entropy_bits: float = float("nan")
    ceiling_bits: float = float("nan")

    @property
    def near_uniform(self) -> bool:
        """H(A_t) within NEAR_UNIFORM of the ceiling (a row that sees one key is not near uniform: it has
        no choice to make)."""
        return self.ceiling_bits > 0 and self.entropy_bits >= (1 - NEAR_UNIFORM) * self.ceiling_bits


def row_entropy(row: np.ndarray, seen: np.ndarray) -> tuple[float, float]:
    """(H(A_t) in bits, log2 of the keys seen) of one row (T',); (nan, nan) when no key is seen."""
    a = np.asarray(row, dtype=np.float64).reshape(-1)[np.asarray(seen, dtype=bool).reshape(-1)]
    a = a[np.isfinite(a)]
    if a.size == 0:
        return float("nan"), float("nan")
    p = a[a > 0]
    return float(-(p * np.log2(p)).sum()), float(np.log2(a.size))


def top_keys(row: np.ndarray, seen: np.ndarray | None = None, n: int = TOP) -> tuple:
    """((j, A[j]), ...) of the ``n`` heaviest keys of ``row`` (T',), heaviest first, ties by position;
    keys not ``seen`` (masked) and NaN weights are left out."""
    row = np.asarray(row, dtype=np.float64).reshape(-1)
    ok = np.isfinite(row) if seen is None else np.isfinite(row) & np.asarray(seen, dtype=bool).reshape(-1)
    keys = np.flatnonzero(ok)
    if keys.size == 0:
        return ()
    order = keys[np.lexsort((keys, -row[keys]))][:n]  # weight descending, then position
    return tuple((int(j), float(row[j])) for j in order)


def layer_rows(src: HeadSource, layer: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """(A (H, T'), seen (T',)): row ``t`` (0-based) of every head of ``layer``, as the model computes it."""
    check_head(src, layer)
    if not (isinstance(t, (int, np.integer)) and 0 <= t < src.T):
        raise ValueError(f"--query: {t!r} is not a query position; this source has positions 1..{src.T}")
    rows, seen = [], None
    for h in range(src.n_heads):  # a head at a time: every head's Q and K stacked were gigabytes at 16,384 tokens
        Q, K = src.read("Q", layer, h), src.read("K", layer, src.kv_head[h])
        A, seen = src.scores_block(layer, Q, K)(int(t), int(t) + 1)  # (1, T'), (1, T')
        rows.append(A[0])
    return np.stack(rows), np.asarray(seen).reshape(-1)


def query_tops(src: HeadSource, t: int, layer: int | None = None, n: int = TOP) -> list[HeadTop]:
    """The top ``n`` keys of query ``t`` (0-based) in every head of ``layer`` (every layer when None)."""
    layers = range(src.n_layers) if layer is None else [layer]
    out = []
    for ly in layers:
        A, seen = layer_rows(src, ly, t)
        out += [HeadTop(ly, h, top_keys(A[h], seen, n), *row_entropy(A[h], seen)) for h in range(src.n_heads)]
    return out

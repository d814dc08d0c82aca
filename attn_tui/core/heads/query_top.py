"""Where one query looks, in every head: the top keys of row t of each head's A, and how near uniform the row is.

For a query position t (0-based here, counted from 1 wherever it is shown), each head of a layer
gives a row A[t, :] (T',) of the model's own weights, softmax(scale · q_t Kᵀ + M_t), computed
from the source's Q and K (HeadSource.scores_block, a head at a time: one row, never a T x T'
matrix, nor every head's Q and K at once). ``top_keys`` orders a row's keys by weight; ``query_tops``
gives the top few of every head of one layer or of every layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .source import HeadSource, check_head

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

TOP = 5  # keys listed per head (BertViz's model view, one line a head)
# A row whose entropy is within this share of its ceiling (log2 of the keys it sees) is near uniform:
# its heaviest keys are barely heavier than the rest, and what they are to the query says little.
NEAR_UNIFORM = 0.05


class HeadTop(NamedTuple):
    """Row t of head ``layer``.``head``: its top keys as (position from 0, weight), heaviest first;
    the row's entropy H(A_t) in bits and its ceiling, log2 of the keys it sees (NaN: every key masked)."""

    layer: int
    head: int
    top: tuple[Any, ...]  # ((j, weight), ...)
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


def top_keys(row: np.ndarray, seen: np.ndarray | None = None, n: int = TOP) -> tuple[Any, ...]:
    """((j, A[j]), ...) of the ``n`` heaviest keys of ``row`` (T',), heaviest first, ties by position;
    keys not ``seen`` (masked) and NaN weights are left out."""
    row = np.asarray(row, dtype=np.float64).reshape(-1)
    ok = np.isfinite(row) if seen is None else np.isfinite(row) & np.asarray(seen, dtype=bool).reshape(-1)
    keys = np.flatnonzero(ok)
    if keys.size == 0:
        return ()
    order = keys[np.lexsort((keys, -row[keys]))][:n]  # weight descending, then position
    return tuple((int(j), float(row[j])) for j in order)


def layer_rows(src: HeadSource, layer: int, t: int, tell: Any | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(A (H, T'), seen (T',)): row ``t`` (0-based) of every head of ``layer``, as the model computes it;
    ``tell()`` after each head."""
    check_head(src, layer)
    if not (isinstance(t, (int, np.integer)) and 0 <= t < src.T):
        raise ValueError(f"--query: {t!r} is not a query position; this source has positions 1..{src.T}")
    rows, seen = [], None
    for h in range(src.n_heads):  # a head at a time: every head's Q and K stacked were gigabytes at 16,384 tokens
        Q, K = src.read("Q", layer, h), src.read("K", layer, src.kv_head[h])
        A, seen = src.scores_block(layer, Q, K)(int(t), int(t) + 1)  # (1, T'), (1, T')
        rows.append(A[0])
        if tell is not None:
            tell()
    return np.stack(rows), np.asarray(seen).reshape(-1)


def query_tops(
    src: HeadSource, t: int, layer: int | None = None, n: int = TOP, progress: Any | None = None
) -> list[HeadTop]:
    """The top ``n`` keys of query ``t`` (0-based) in every head of ``layer`` (every layer when None);
    ``progress(heads read, heads)`` after each head, when given."""
    layers = range(src.n_layers) if layer is None else [layer]
    done, total = [0], len(layers) * src.n_heads

    def tell() -> None:
        done[0] += 1
        assert progress is not None  # tell is handed on only with a progress (below)
        progress(done[0], total)

    out = []
    for ly in layers:
        A, seen = layer_rows(src, ly, t, None if progress is None else tell)
        out += [HeadTop(ly, h, top_keys(A[h], seen, n), *row_entropy(A[h], seen)) for h in range(src.n_heads)]
    return out


def relations(ids: Sequence[Any] | np.ndarray, keys_are_queries: bool, t: int, j: int) -> tuple[str, ...]:
    """Every name key j has for query t (both 0-based), in this order: "self", "prev", "after copy",
    "first", "copy" (an earlier occurrence of the query's own token: the heads screen's "dup"). A key
    can be several: t1 is "first" and a "copy" when the query repeats the first token."""
    if not keys_are_queries:
        return ("first",) if j == 0 else ()
    if j == t:
        return ("self",)
    names = (
        ("prev", j == t - 1),
        ("after copy", 1 <= j < t and ids[j - 1] == ids[t]),
        ("first", j == 0),
        ("copy", j < t and ids[j] == ids[t]),
    )
    return tuple(name for name, holds in names if holds)


def relation(ids: Sequence[Any] | np.ndarray, keys_are_queries: bool, t: int, j: int) -> str:
    """relations() as the views write them: "first, copy", or "" when the key is none of them."""
    return ", ".join(relations(ids, keys_are_queries, t, j))


def looks_at(src: HeadSource, t: int, tops: list[HeadTop]) -> dict[Any, Any]:
    """{(layer, head): (j, relation)}: the heaviest key j (0-based) of query ``t`` in each head of ``tops``
    and what it is to the query (``relation``; "" when nothing named), heads whose keys are all masked left out."""
    aligned = src.T_k == src.T
    return {(h.layer, h.head): (h.top[0][0], relation(src.ids, aligned, t, h.top[0][0])) for h in tops if h.top}

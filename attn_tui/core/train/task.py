"""The toy task: associative recall, whose right attention pattern is known.

A sequence holds ``n_keys`` distinct symbols drawn from a vocabulary of ``n_symbols``
(one-hot embeddings, so d_model = n_symbols); they are the keys (rows of Y, T' = n_keys).
Then come ``n_queries`` query tokens, each repeating one of the keys (distinct, in a
random order; rows of X, T = n_queries). The right answer for query t is the key
position holding the same symbol: a correct head puts its attention weight there, so
the right A is a 0/1 matrix with one 1 per row. With one-hot embeddings the scores are
S = c · X W_Q W_Kᵀ Yᵀ, so the head has learned when B = W_Q W_Kᵀ (d_model × d_model)
has its diagonal larger than every other entry of its row.

Everything is drawn from ``numpy.random.default_rng(seed)``: the same seed, the same batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

ASSOC_RECALL = "assoc-recall"
TASKS = (ASSOC_RECALL,)


@dataclass(frozen=True)
class Task:
    """Sizes of the associative-recall task (the defaults are the documented task)."""

    name: str = ASSOC_RECALL
    n_symbols: int = 16  # vocabulary = d_model (one-hot embeddings)
    n_keys: int = 8  # T': keys in a sequence, distinct symbols
    n_queries: int = 4  # T: query tokens, each one of the keys again

    def __post_init__(self) -> None:
        if self.name not in TASKS:
            raise ValueError(f"task: unknown task {self.name!r}; use {', '.join(TASKS)}")
        if not 1 <= self.n_queries <= self.n_keys <= self.n_symbols:
            raise ValueError("task: need 1 <= n_queries <= n_keys <= n_symbols")

    @property
    def d_model(self) -> int:
        return self.n_symbols

    def symbols(self, rng: np.random.Generator, batch: int) -> Any:
        """(keys (B, T'), queries (B, T), target (B, T)): symbol ids and, per query, the key position."""
        keys = np.argsort(rng.random((batch, self.n_symbols)), axis=1)[:, : self.n_keys]  # distinct
        target = np.argsort(rng.random((batch, self.n_keys)), axis=1)[:, : self.n_queries]  # distinct
        queries = np.take_along_axis(keys, target, axis=1)
        return keys, queries, target

    def batch(self, rng: np.random.Generator, batch: int) -> Any:
        """X (B, T, d_model), Y (B, T', d_model) one-hot, target (B, T) key positions."""
        keys, queries, target = self.symbols(rng, batch)
        eye = np.eye(self.n_symbols)
        return eye[queries], eye[keys], target

    def probe(self, seed: int) -> Any:
        """One fixed sequence to watch: (X (T, d_model), Y (T', d_model), target (T,), query labels, key labels)."""
        keys, queries, target = self.symbols(np.random.default_rng([seed, 1]), 1)
        eye = np.eye(self.n_symbols)
        q_labels = [f"{symbol_name(s)}?" for s in queries[0]]
        k_labels = [symbol_name(s) for s in keys[0]]
        return eye[queries[0]], eye[keys[0]], target[0], q_labels, k_labels


def symbol_name(i: int) -> str:
    """Symbol i as a letter: 0 -> 'a', 1 -> 'b', ..."""
    return chr(ord("a") + int(i)) if i < 26 else f"s{int(i)}"

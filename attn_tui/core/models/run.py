"""Run: every intermediate of one forward pass of a model of core/models, float64.

    Q, K, V, O  (L, H, T, d_k)     each head's queries, keys (post-RoPE for the text model), values,
                                   and O = A V
    A           (L, H, T, T)       each head's attention weights (causal)
    head_out    (L, H, T, d_model) what each head writes into the residual stream: O_j W_O^(j)
    resid       (L + 1, T, d_model) the residual stream before each layer and after the last
    final_scale (T,)               the final LayerNorm's 1/σ at each position (1 where there is none)
    logits      (T, vocab)

Direct logit attribution is exact: the model's ``part_logits(part, final_scale)`` of the embedding
resid[0] and of each head_out[l, j], summed, is ``logits`` (attention-only, no biases).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

FILL = -1e9  # the lesson's finite stand-in for -inf above the diagonal


class HeadShapes:
    """What a model's W_Q (L, H, d_model, d_k) says of it, for every model here: layers, heads a layer,
    d_k and the scores' scale 1/√d_k."""

    W_Q: np.ndarray  # (L, H, d_model, d_k): the model's, which the class using these properties holds

    @property
    def n_layers(self) -> int:
        return self.W_Q.shape[0]

    @property
    def n_heads(self) -> int:
        return self.W_Q.shape[1]

    @property
    def d_k(self) -> int:
        return self.W_Q.shape[3]

    @property
    def scale(self) -> float:
        return 1.0 / np.sqrt(self.d_k)


@dataclass(frozen=True, eq=False)
class Run:
    """One forward pass over token ids (T,): see the module's table of shapes."""

    ids: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    A: np.ndarray
    O: np.ndarray
    head_out: np.ndarray
    resid: np.ndarray
    final_scale: np.ndarray
    logits: np.ndarray

    @property
    def T(self) -> int:
        return len(self.ids)


def causal_fill(T: int) -> np.ndarray:
    """M (T, T): 0 on and below the diagonal, FILL above (the lesson's mask)."""
    return np.triu(np.full((T, T), FILL), k=1)


class Layers:
    """The Run's arrays, allocated once and filled a layer at a time (np.stack of the layers copied
    each of them again: a tenth of a forward at 128 tokens)."""

    def __init__(self, L: int, H: int, T: int, d_k: int, d_model: int) -> None:
        self.Q, self.K, self.V, self.O = (np.empty((L, H, T, d_k)) for _ in range(4))
        self.A = np.empty((L, H, T, T))
        self.head_out = np.empty((L, H, T, d_model))
        self.resid = np.empty((L + 1, T, d_model))

    def run(self, ids: np.ndarray, final_scale: Any, logits: Any) -> Run:
        return Run(
            np.asarray(ids), self.Q, self.K, self.V, self.A, self.O, self.head_out, self.resid, final_scale, logits
        )

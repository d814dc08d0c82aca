"""One attention head, forward through the core's softmax and backward written out by hand.

Shapes (B sequences, T queries, T' keys):
    Q = X W_Q        (B, T, d_k)     X (B, T, d_model),  W_Q (d_model, d_k)
    K = Y W_K        (B, T', d_k)    Y (B, T', d_model), W_K (d_model, d_k)
    S = c · Q Kᵀ     (B, T, T')      c = 1/√d_k scaled, 1 unscaled
    A = softmax(S)   (B, T, T')      row by row
    V = Y W_V        (B, T', d_v)    W_V = I fixed: a key's value is the token itself
    O = A V          (B, T, d_v)     what each query retrieves
    L = ½ mean_t ‖O_t − y_t‖²        y_t: the token the query should retrieve (its matching key)

The loss reaches the scores only through A = softmax(S), as in a transformer where O feeds the
next layer: dS = (diag(p) − ppᵀ) dA row by row, whose diagonal p(1 − p) is the lesson's gradient
lens. (A cross-entropy on log A would cancel that factor; this loss keeps it.) W_V is fixed, so
it receives no gradient; it is saved with W_Q and W_K for the explorer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..attention import softmax
from ..info import row_entropies_bits

if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True, eq=False)
class Params:
    """The learned projections: W_Q, W_K (d_model, d_k); W_V (d_model, d_v), fixed."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray

    @property
    def d_k(self) -> int:
        return self.W_Q.shape[1]


def init_params(d_model: int, d_k: int, seed: int) -> Params:
    """W_Q, W_K with i.i.d. N(0, 1) entries: with one-hot tokens, q and k then have unit-variance
    components, the lesson's assumption, so Var(q·k) = d_k. W_V = I."""
    rng = np.random.default_rng([seed, 2])
    W_Q = rng.standard_normal((d_model, d_k))
    W_K = rng.standard_normal((d_model, d_k))
    return Params(W_Q, W_K, np.eye(d_model))


def scale_of(d_k: int, scaled: bool) -> float:
    return 1.0 / math.sqrt(d_k) if scaled else 1.0


@dataclass(frozen=True, eq=False)
class BatchForward:
    """Every intermediate of one batch forward pass (kept for the backward pass)."""

    X: np.ndarray
    Y: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    S: np.ndarray
    A: np.ndarray
    V: np.ndarray
    O: np.ndarray
    y: np.ndarray
    target: np.ndarray
    c: float
    loss: float


def forward(p: Params, X: np.ndarray, Y: np.ndarray, target: Any, scaled: bool = True) -> BatchForward:
    c = scale_of(p.d_k, scaled)
    Q = X @ p.W_Q  # (B, T, d_k)
    K = Y @ p.W_K  # (B, T', d_k)
    S = c * (Q @ np.swapaxes(K, -1, -2))  # (B, T, T')
    A = softmax(S, axis=-1)  # (B, T, T')
    V = Y @ p.W_V  # (B, T', d_v)
    O = A @ V  # (B, T, d_v)
    y = np.take_along_axis(V, target[..., None], axis=-2)  # (B, T, d_v): the matching key's value
    loss = float(0.5 * np.mean(np.sum((O - y) ** 2, axis=-1)))
    return BatchForward(X, Y, Q, K, S, A, V, O, y, target, c, loss)


def softmax_backward(A: np.ndarray, dA: Any) -> Any:
    """dS from dA through A = softmax(S), row by row: dS = (diag(p) − p pᵀ) dA for each row p.

    Written as p ⊙ (dA − ⟨p, dA⟩), which is the same product without building the T'×T' Jacobian.
    The diagonal of the Jacobian is p(1 − p): a saturated row (p → one-hot) passes almost nothing.
    """
    return A * (dA - np.sum(A * dA, axis=-1, keepdims=True))


def backward(p: Params, f: BatchForward) -> dict[Any, Any]:
    """{'W_Q': dL/dW_Q, 'W_K': dL/dW_K}, each (d_model, d_k), by the chain rule written out."""
    n = f.target.size  # the mean runs over every query row of the batch
    dO = (f.O - f.y) / n  # (B, T, d_v)
    dA = dO @ np.swapaxes(f.V, -1, -2)  # (B, T, T'): O = A V
    dS = softmax_backward(f.A, dA)  # (B, T, T')
    dQ = f.c * (dS @ f.K)  # (B, T, d_k): S = c Q Kᵀ
    dK = f.c * (np.swapaxes(dS, -1, -2) @ f.Q)  # (B, T', d_k)
    dW_Q = np.einsum("btm,btk->mk", f.X, dQ)  # Σ_b Xᵀ dQ
    dW_K = np.einsum("bsm,bsk->mk", f.Y, dK)  # Σ_b Yᵀ dK
    return {"W_Q": dW_Q, "W_K": dW_K}


def metrics(f: BatchForward) -> dict[Any, Any]:
    """loss, accuracy (argmax of the row on the right key), mean row entropy (bits), mean p(1−p)."""
    rows = f.A.reshape(-1, f.A.shape[-1])
    right = np.argmax(rows, axis=-1) == f.target.reshape(-1)
    return {
        "loss": f.loss,
        "accuracy": float(np.mean(right)),
        "mean_row_entropy_bits": float(np.mean(row_entropies_bits(rows))),
        "mean_p_one_minus_p": float(np.mean(rows * (1.0 - rows))),
    }

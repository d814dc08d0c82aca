"""Entropy in bits, the lesson's yardstick for how spread an attention row is."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any


def entropy_bits(p: Any) -> Any:
    """H(p) = -Σ_i p_i log₂ p_i in bits, with 0·log 0 = 0 exactly.

    p: (n,) a distribution. NaN anywhere in p gives NaN.

    >>> entropy_bits([0.5, 0.5])
    1.0
    >>> entropy_bits([1.0, 0.0, 0.0])
    0.0
    """
    p = np.asarray(p, dtype=np.float64)
    if np.isnan(p).any():
        return float("nan")
    nz = p[p > 0]
    h = -np.sum(nz * np.log2(nz))
    return float(h) + 0.0  # +0.0 turns -0.0 into 0.0


def row_entropies_bits(A: np.ndarray) -> Any:
    """H(A_t) for each row t of A (T, T') -> (T,) float64 array of bits."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"A must be 2-D (T, T'), got shape {A.shape}")
    terms = np.zeros_like(A)
    pos = A > 0  # 0·log 0 = 0 exactly; NaN > 0 is False, NaN rows are set below
    np.log2(A, out=terms, where=pos)  # in place, only where p > 0: no gathered copies of A
    np.multiply(A, terms, out=terms, where=pos)
    h = -terms.sum(axis=1) + 0.0  # +0.0 turns -0.0 into 0.0
    h[np.isnan(A).any(axis=1)] = np.nan
    return h


def effective_tokens(H: np.ndarray) -> Any:
    """2^H: the effective number of tokens a row attends to. Same shape as H."""
    return np.exp2(np.asarray(H, dtype=np.float64))

"""The lesson's engineering lenses on one attention computation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .attention import blocked_cells, softmax
from .ranks import numerical_rank, score_rank

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt


def nadaraya_watson_row(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, t: int, scale: float, blocked: Any | None = None
) -> Any:
    """Row t of O as a kernel smoother, from raw (unshifted) kernel weights.

    o_t = Σ_i κ(q_t, k_i) v_i / Σ_i κ(q_t, k_i),  κ = exp(scale · q_t·k_i),
    summed over the keys i that query t may see. Q (T, d_k), K (T', d_k),
    V (T', d_v), blocked (T, T') bool or None. Returns (o_t (d_v,), kappa (T',)).
    Without the max shift κ can overflow to inf for large scores -- exactly why
    softmax subtracts the row max; the result is then NaN.
    """
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    visible = np.ones(K.shape[0], dtype=bool) if blocked is None else ~np.asarray(blocked[t], dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        kappa = np.where(visible, np.exp(scale * (K @ Q[t])), 0.0)  # (T',)
        num = kappa @ V  # (d_v,)
        den = kappa.sum()
        return num / den, kappa


def max_abs_diff(a: np.ndarray, b: Any) -> Any:
    """max |a - b| over all entries, as a float (NaN if either has NaN)."""
    d = np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))
    return float(np.max(d)) if d.size else 0.0


def prefix_average(T: int) -> Any:
    """Lesson 07's W_avg (T, T): row t is 1/t on columns 1..t, 0 after."""
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def box_kernel(T: int, fill: float = -1e9) -> Any:
    """A with W_Q = W_K = 0 (all scores 0) under a causal mask, and W_avg. Both (T, T)."""
    M = np.where(blocked_cells("causal", T), fill, 0.0)
    return softmax(np.zeros((T, T)) + M), prefix_average(T)


def rank_info(S: np.ndarray, Q: np.ndarray, K: np.ndarray) -> Any:
    """Ranks of S, Q, K and the singular values of S (descending).

    S = Q Kᵀ is a bilinear form, so rank S <= min(rank Q, rank K) <= d_k. The ranks
    are the Trace's (:func:`attention.score_rank`, in the precision of the dtype);
    None for a matrix with NaN/inf.
    """
    S64 = np.asarray(S, dtype=np.float64)
    finite = bool(np.all(np.isfinite(S64)))
    sv = np.linalg.svd(S64, compute_uv=False) if finite else np.full(min(S64.shape), np.nan)
    return {
        "S": score_rank(S, Q, K),
        "Q": numerical_rank(Q),
        "K": numerical_rank(K),
        "d_k": int(np.shape(Q)[1]),
        "singular_values": sv,
    }


def jacobian_diag(p: Any) -> Any:
    """Diagonal of the softmax Jacobian, ∂p_i/∂s_i = p_i (1 - p_i). Same shape as p."""
    p = np.asarray(p, dtype=np.float64)
    return p * (1.0 - p)


def param_count(d_model: int, d_k: int, d_v: int | None = None, with_output: bool = False) -> Any:
    """Parameters of W_Q, W_K (d_model x d_k) and W_V (d_model x d_v): d_model(2 d_k + d_v).

    with_output adds W_O (d_v x d_model).

    >>> param_count(6, 4)
    72
    >>> param_count(384, 64, 64, with_output=True)
    98304
    """
    d_v = d_k if d_v is None else d_v
    n = d_model * (2 * d_k + d_v)
    return n + (d_v * d_model if with_output else 0)


def score_cost(T: int, d_k: int, d_v: int | None = None, T_k: int | None = None) -> Any:
    """Size and multiply-add cost of attention at sequence length T (exercise 5).

    S has T·T' entries; S = Q Kᵀ costs T·T'·d_k multiply-adds, O = A V T·T'·d_v.
    FLOPs count a multiply-add as 2.
    """
    d_v = d_k if d_v is None else d_v
    T_k = T if T_k is None else T_k
    return {"T": T, "entries": T * T_k, "flops_S": 2 * T * T_k * d_k, "flops_O": 2 * T * T_k * d_v}


def memory_lookup(A_row: np.ndarray, keys: Any, top: Any | None = None) -> Any:
    """Associative-memory reading of one row: addresses ranked by weight.

    Returns [(key_index, label, weight)] sorted by weight, largest first,
    masked (zero-weight) addresses last.
    """
    order = np.argsort(-np.nan_to_num(np.asarray(A_row, dtype=np.float64), nan=-1.0), kind="stable")
    ranked = [(int(i), keys[i], float(A_row[i])) for i in order]
    return ranked[:top] if top else ranked


def gradient_over_c(scores: np.ndarray, visible: Any | None = None, scales: Any = (0.25, 0.5, 1, 2, 4, 8, 16)) -> Any:
    """How the softmax Jacobian's diagonal vanishes as the multiplier c grows.

    scores: (n,) one row's scores at c = 1 (q·k/√d_k, or q·k unscaled);
    visible: (n,) bool, the keys the row may see (None = all).
    For each c, p = softmax(c · scores) over the visible keys and
    returns [{c, max_p, H, max_grad, sum_grad}] with grad = p(1 - p).
    """
    from .info import entropy_bits

    s = np.asarray(scores, dtype=np.float64)
    vis = np.ones(s.shape, dtype=bool) if visible is None else np.asarray(visible, dtype=bool)
    out = []
    for c in scales:
        p = np.zeros_like(s)
        if vis.any():
            p[vis] = softmax(float(c) * s[vis])
        g = jacobian_diag(p)
        out.append(
            {
                "c": float(c),
                "max_p": float(p.max()),
                "H": entropy_bits(p),
                "max_grad": float(g.max()),
                "sum_grad": float(g.sum()),
            }
        )
    return out


def correlation_row(Q: np.ndarray, K: np.ndarray, t: int, scale: float, blocked: Any | None = None) -> Any:
    """Row t as a correlation receiver: the query q_t correlated against every key.

    Returns {raw (T',) q_t·k_i for every key i, scores (T',) scale·q_t·k_i,
    visible (T',) bool, peak, runner_up (key indices among the visible keys, or
    None), margin (peak score − runner-up score, in the scores' units),
    ratio (e^margin: softmax weight of the peak over the runner-up's),
    noise_sd (√d_k: the sd of q·k for independent zero-mean unit-variance
    components), noise_sd_scores (|scale|·√d_k: that floor after the scale)}.
    """
    Q, K = (np.asarray(a, dtype=np.float64) for a in (Q, K))
    raw = K @ Q[t]  # (T',)
    scores = float(scale) * raw
    visible = np.ones(K.shape[0], dtype=bool) if blocked is None else ~np.asarray(blocked[t], dtype=bool)
    order = [int(i) for i in np.argsort(-scores, kind="stable") if visible[i] and np.isfinite(scores[i])]
    peak = order[0] if order else None
    runner = order[1] if len(order) > 1 else None
    margin = float(scores[peak] - scores[runner]) if runner is not None else float("nan")
    d_k = Q.shape[1]
    with np.errstate(over="ignore"):
        ratio = float(np.exp(margin)) if runner is not None else float("nan")
    return {
        "raw": raw,
        "scores": scores,
        "visible": visible,
        "peak": peak,
        "runner_up": runner,
        "margin": margin,
        "ratio": ratio,
        "noise_sd": float(np.sqrt(d_k)),
        "noise_sd_scores": abs(float(scale)) * float(np.sqrt(d_k)),
    }


def sharp_limit_bits(scores: np.ndarray, visible: Any | None = None, rtol: float = 1e-9) -> float:
    """H(softmax(c·s)) in bits as c → ∞: log₂ of how many visible scores tie at the maximum.

    0 when one score leads (a hard lookup), 1 for a tie of two, log₂k for k. NaN when
    no visible score is finite.
    """
    s = np.asarray(scores, dtype=np.float64)
    vis = np.ones(s.shape, dtype=bool) if visible is None else np.asarray(visible, dtype=bool)
    v = s[vis & np.isfinite(s)]
    if not v.size:
        return float("nan")
    top = v.max()
    ties = int(np.sum(np.isclose(v, top, rtol=rtol, atol=0.0)))
    return float(np.log2(ties))


def rounding_bound(dtype: npt.DTypeLike, factor: float = 4) -> Any:
    """What rounding alone can make |A − W_avg| (or any probability): factor·ε of the dtype.

    float64 2^-50 ≈ 8.9e-16, float32 ≈ 4.8e-7, float16 ≈ 3.9e-3.
    """
    return factor * float(np.finfo(np.dtype(dtype)).eps)

"""The lesson's seeded experiments: variance of q·k, saturation, the scale sweep.

NumPy's generator is not the lesson's, so the draws differ from the printed ones;
the shapes of the results are what reproduce: Var(q·k)/d_k ≈ 1, an unscaled row
at d_k = 512 is nearly one-hot, and entropy falls as c grows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .attention import softmax
from .info import entropy_bits

if TYPE_CHECKING:
    from typing import Any

DKS = (4, 64, 512)
SWEEP = np.linspace(0.1, 3.0, 30)


def dot_samples(d_k: int, n: int = 5000, seed: int = 8) -> Any:
    """n samples of q·k with q, k ~ N(0, I_{d_k}) independent. Shape (n,)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))
    k = rng.standard_normal((n, d_k))
    return np.einsum("nd,nd->n", q, k)


def variance(dks: Any = DKS, n: int = 5000, seed: int = 8, progress: Any | None = None) -> Any:
    """[{d_k, var, ratio}] with var = mean((q·k)²) (the mean is ~0) and ratio = var/d_k.

    progress: optional callable(done, total) for long runs.
    """
    out = []
    for j, d_k in enumerate(dks):
        dots = dot_samples(int(d_k), n, seed + j)
        var = float(np.mean(dots**2))
        out.append({"d_k": int(d_k), "var": var, "ratio": var / d_k})
        if progress:
            progress(j + 1, len(dks))
    return out


def saturation(d_k: int = 512, T: int = 8, seed: int = 8) -> Any:
    """Row 1 of softmax(Q Kᵀ) unscaled vs scaled by 1/√d_k, Q, K ~ N(0,1) (T, d_k).

    Returns {unscaled: {max, H}, scaled: {max, H}, log2_T}.
    """
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((T, d_k))
    K = rng.standard_normal((T, d_k))
    S = Q @ K.T  # (T, T), variance ~ d_k
    rows = {"unscaled": softmax(S[0]), "scaled": softmax(S[0] / np.sqrt(d_k))}
    res: dict[str, Any] = {k: {"max": float(a.max()), "H": entropy_bits(a)} for k, a in rows.items()}
    res["log2_T"] = float(np.log2(T))
    return res


def sweep_scores(T: int = 8, d_k: int = 16, seed: int = 16) -> Any:
    """One query row against T keys at unit variance: s = q Kᵀ/√d_k, shape (T,)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d_k)
    K = rng.standard_normal((T, d_k))
    return K @ q / np.sqrt(d_k)


def scale_sweep(scales: Any = SWEEP, T: int = 8, d_k: int = 16, seed: int = 16) -> Any:
    """[{c, H, row}] for softmax(c·s) at each multiplier c: the entropy knob."""
    s = sweep_scores(T, d_k, seed)
    out = []
    for c in scales:
        a = softmax(float(c) * s)
        out.append({"c": float(c), "H": entropy_bits(a), "row": a, "scores": float(c) * s})
    return out


LESSON_YLIM = (-3.0, 6.0)  # the lesson's ylim([-3, 6]) for the scores panel


def sweep_ylim(frames: Any, lesson: Any = LESSON_YLIM) -> tuple[float, float]:
    """The scores panel's y range: the lesson's [-3, 6], widened to whole numbers so that no bar of
    any frame is clipped (its t6 reaches -6.1 and t1 6.0 at c = 3); one range for the whole sweep,
    so the bars visibly stretch as c grows.

    >>> sweep_ylim([{"scores": np.array([-6.1, 6.01])}])
    (-7.0, 7.0)
    """
    scores = [v for f in frames for v in np.ravel(f["scores"]) if np.isfinite(v)]
    lo, hi = min([lesson[0], *scores]), max([lesson[1], *scores])
    return float(np.floor(lo)), float(np.ceil(hi))


def entropies_at(cs: Any = (0.1, 1.0, 3.0), T: int = 8, d_k: int = 16, seed: int = 16) -> Any:
    """H(softmax(c·s)) in bits at each exact multiplier c (the lesson's c = 0.1, 1, 3 line).

    s is :func:`sweep_scores`; the sweep grid holds 0.9999999999999999, not 1, so
    the lesson's three values are computed at the exact c here.
    """
    s = sweep_scores(T, d_k, seed)
    return [entropy_bits(softmax(float(c) * s)) for c in cs]

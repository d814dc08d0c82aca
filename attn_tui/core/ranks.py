"""Numerical ranks in the precision of a trace's dtype: rank Q, rank K, and rank S for S = scale · Q Kᵀ
bounded by min(rank Q, rank K) (the lesson's rank S ≤ min(rank Q, rank K) ≤ d_k, made exact)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt


def float_info(dtype: npt.DTypeLike) -> Any:
    """np.finfo of a float dtype; float64's for anything else (an integer matrix)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype if np.issubdtype(dtype, np.floating) else np.float64)


def numerical_rank(a: np.ndarray, floor: float = 0.0, size: Any | None = None) -> int | None:
    """Numerical rank of a in the precision of its own dtype, or None when a has NaN/inf entries.

    Counts the singular values above size · eps · σ_max + floor, size = min(rows, cols)
    unless given (S passes min(T, T', d_k)): NumPy's matrix_rank tolerance with the eps of
    a's dtype (9.8e-4 for a float16 trace, not float64's 2.2e-16, whose tolerance counted
    float16 rounding as rank) and the number of singular values in place of max(rows, cols),
    which grows with T: at T = 1024 a float16 tolerance of 1024 · eps · σ_max was above
    σ_max itself and every rank read 0. Rounding each entry moves the singular values by
    at most ‖E‖₂ ≤ ‖E‖_F ≤ eps · ‖a‖_F ≤ eps · √size · σ_max, below this tolerance.
    """
    fi = float_info(np.asarray(a).dtype)
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0 or not np.all(np.isfinite(a)):
        return None
    sv = np.linalg.svd(a, compute_uv=False)  # descending
    tol = sv[0] * (min(a.shape) if size is None else size) * float(fi.eps) + floor
    return int(np.count_nonzero(sv > tol))


def score_rank(S: np.ndarray, Q: np.ndarray, K: np.ndarray, scale: float | None = None) -> Any:
    """rank S for S = scale · Q Kᵀ as computed in S's dtype, or None when S has NaN/inf.

    The singular values of S above its own tolerance (:func:`numerical_rank`, eps of S's dtype) and
    above the rounding of the product (:func:`score_tolerance`), and at most
    min(rank Q, rank K): S = Q Kᵀ exactly, so a singular value beyond the factors' ranks,
    judged at the same precision, is rounding of directions rank Q or rank K already called
    noise. Without that bound Q = [[1, e], [e, e]], K = [[e, 1], [e, e]] with e = 3e-257
    (rank Q = rank K = 1: e is below their tolerance) gave rank S = 2.
    """
    S = np.asarray(S)
    if S.size == 0 or not np.all(np.isfinite(S)):
        return None
    factors = [r for r in (numerical_rank(Q), numerical_rank(K)) if r is not None]
    size = min(*S.shape, np.shape(Q)[1])  # S has at most min(T, T', d_k) singular values above rounding
    rank = numerical_rank(S, score_tolerance(S, Q, K, scale), size)
    assert rank is not None  # S is finite and not empty (above)
    return min([rank, *factors])


def score_tolerance(S: np.ndarray, Q: np.ndarray, K: np.ndarray, scale: float | None = None) -> float:
    """The rounding of computing S = scale · Q Kᵀ in S's dtype, as a floor for S's rank:

        (d_k + 2) · (eps_acc · σ_max(|scale| · |Q| |K|ᵀ) + √(T T') · subnormal)

    A score sums d_k products, each off by eps_acc (the accumulation's eps: float32's for
    float16) of its size, or by a subnormal of S's dtype when it underflows; scores that
    cancel are that rounding and no more. ``scale`` None: |scale| is recovered as
    max|S| / max|Q Kᵀ|.
    """
    S = np.asarray(S)
    Q64, K64 = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    T, d_k = Q64.shape
    T_k = K64.shape[0]
    fi = float_info(S.dtype)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if scale is None:
            qk = np.max(np.abs(Q64 @ K64.T))  # max |.|, not a norm: squares of 1e-257 underflow
            scale = np.max(np.abs(S.astype(np.float64))) / qk if qk > 0 else 0.0
        B = abs(float(scale)) * (np.abs(Q64) @ np.abs(K64).T)  # (T, T'): the size of each score's terms
        acc = float(float_info(np.promote_types(fi.dtype, np.float32)).eps)
        return float((d_k + 2) * (acc * np.linalg.norm(B, 2) + np.sqrt(T * T_k) * float(fi.smallest_subnormal)))


# -- without S: from QR factors of Q and K ------------------------------------------------
TSQR_ROWS = 1024  # rows per block of a tall factor's QR (_r_factor)


def _r_factor(a: np.ndarray) -> Any:
    """R of a's reduced QR, (min(rows, cols), cols): a = Q₁ R with orthonormal columns in Q₁.

    A tall a is factored a block of TSQR_ROWS rows at a time and the stacked R of the blocks
    once more (TSQR): a = diag(Q_b) [R_b] and [R_b] = Q' R give a = (diag(Q_b) Q') R, the same R
    up to the signs of its rows (which change no singular value) and rounding. LAPACK's one
    Householder pass over 16384 x 64 streams the whole matrix per column panel: 0.15-0.19 s,
    against 0.05-0.06 s in blocks that stay in cache (one thread, as the report runs)."""
    a = np.asarray(a, dtype=np.float64)
    rows, cols = a.shape
    if rows <= 2 * TSQR_ROWS or cols == 0:
        return np.linalg.qr(a, mode="r")
    blocks = [np.linalg.qr(a[i : i + TSQR_ROWS], mode="r") for i in range(0, rows, TSQR_ROWS)]
    return np.linalg.qr(np.vstack(blocks), mode="r")


def _svs(R1: Any, R2: Any, scale: float) -> Any:
    return np.linalg.svd(abs(float(scale)) * (R1 @ R2.T), compute_uv=False)


def score_singular_values(Q: np.ndarray, K: np.ndarray, scale: float = 1.0) -> Any:
    """σ(S) for S = scale · Q Kᵀ, (T, T'), without forming S, descending, min(T, T', d_k) of them.

    Q = Q₁R₁ and K = Q₂R₂ (reduced QR) give S = Q₁ (scale · R₁R₂ᵀ) Q₂ᵀ; Q₁ and Q₂ have
    orthonormal columns, so S has the singular values of the small matrix scale · R₁R₂ᵀ
    (at most d_k × d_k): the lesson's rank S ≤ d_k, made into an algorithm. O((T + T') d_k²).
    """
    return _svs(_r_factor(Q), _r_factor(K), scale)


def score_rank_qr(Q: np.ndarray, K: np.ndarray, scale: float, dtype: npt.DTypeLike = np.float64) -> Any:
    """rank S as :func:`score_rank` counts it for S computed in ``dtype``, from σ(S) by
    :func:`score_singular_values` and the factors' ranks: no T x T' matrix (for large T).

    The rounding floor is score_tolerance's, with σ_max(|scale| |Q| |K|ᵀ) from the same QR trick."""
    if not (
        np.all(np.isfinite(np.asarray(Q, dtype=np.float64))) and np.all(np.isfinite(np.asarray(K, dtype=np.float64)))
    ):
        return None  # before any QR: LAPACK's SVD does not converge on NaN
    return qr_ranks(Q, K, scale, dtype)["S"]


def qr_ranks(Q: np.ndarray, K: np.ndarray, scale: float, dtype: npt.DTypeLike = np.float64) -> dict[Any, Any]:
    """{"S": score_rank_qr, "Q": factor_rank(Q), "K": factor_rank(K), "singular_values":
    score_singular_values} from one QR each of Q, K, |Q| and |K| (the three functions apart
    factor Q and K three times each)."""
    Q64, K64 = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    R1, R2 = _r_factor(Q64), _r_factor(K64)
    out = {"Q": _factor_rank(R1, Q), "K": _factor_rank(R2, K), "singular_values": _svs(R1, R2, scale)}
    if not (np.all(np.isfinite(Q64)) and np.all(np.isfinite(K64))):
        return out | {"S": None}
    fi = float_info(dtype)
    sv = out["singular_values"]
    T, d_k = Q64.shape
    T_k = K64.shape[0]
    acc = float(float_info(np.promote_types(fi.dtype, np.float32)).eps)
    big = _svs(_r_factor(np.abs(Q64)), _r_factor(np.abs(K64)), scale)[0]
    floor = (d_k + 2) * (acc * big + np.sqrt(T * T_k) * float(fi.smallest_subnormal))
    tol = sv[0] * min(T, T_k, d_k) * float(fi.eps) + floor
    return out | {"S": min(int(np.count_nonzero(sv > tol)), out["Q"], out["K"])}


def factor_rank(a: np.ndarray) -> Any:
    """:func:`numerical_rank` of a tall a (T x d_k) from the d_k x d_k R of its QR (same singular values)."""
    return _factor_rank(_r_factor(a), a)


def _factor_rank(R: Any, a: np.ndarray) -> int:
    fi = float_info(np.asarray(a).dtype)
    sv = np.linalg.svd(R, compute_uv=False)
    if sv.size == 0:
        return 0
    return int(np.count_nonzero(sv > sv[0] * min(np.shape(a)) * float(fi.eps)))

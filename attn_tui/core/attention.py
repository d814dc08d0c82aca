"""Scaled dot-product attention, every intermediate kept.

    Attn(Q, K, V) = softmax(c * Q Kᵀ / √d_k + M) V

Shapes follow the lesson: T query tokens, T' key tokens (T' = T for
self-attention), d_k query/key width, d_v value width.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .checks import check_matrix, check_same
from .info import row_entropies_bits
from .mask_kinds import MASK_KINDS, SCENARIO_KINDS
from .ranks import float_info, numerical_rank, score_rank, score_tolerance  # noqa: F401  (Trace's ranks; re-exported)

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

DTYPES: dict[str, type[np.floating[Any]]] = {"float64": np.float64, "float32": np.float32, "float16": np.float16}
FILLS = ("-1e9", "-inf", "min")
MASKS = SCENARIO_KINDS  # the kinds a Scenario holds, read off the table (core/mask_kinds.py)


def softmax(x: Any, axis: int = -1) -> Any:
    """Numerically stable softmax along ``axis``.

    softmax(x)_i = exp(x_i - max x) / Σ_j exp(x_j - max x)

    A slice whose entries are all -inf gives NaN, because -inf - (-inf) is NaN:
    the lesson's fully-masked row. The result keeps the input's float dtype.

    >>> import numpy as np
    >>> p = softmax(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
    >>> np.allclose(p.sum(axis=-1), 1.0)
    True
    >>> float(p[1, 0])
    0.3333333333333333
    """
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    return _softmax_sums(x, axis)[0]


def _softmax_sums(x: Any, axis: int = -1) -> Any:
    """(softmax(x), Σ_j exp(x_j - max x)) with one new array: the shift, exp and division run in
    place (the same operations in the same order as e = exp(x - max); e / Σe, so the same bits)."""
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.subtract(x, np.max(x, axis=axis, keepdims=True))
        np.exp(e, out=e)
        sums = np.sum(e, axis=axis, keepdims=True)
        np.divide(e, sums, out=e)
    return e, sums


def matmul(a: np.ndarray, b: Any) -> Any:
    """a @ b in their dtype. float16 is multiplied in float32 and rounded once: NumPy's own
    float16 matmul also accumulates in float32 (ones(4096) · ones(4096) is 4096, not float16's
    2048), but in a loop without BLAS, ~50x slower (0.17 s for 64 x 256 @ 256 x 2048)."""
    if a.dtype == np.float16 and b.dtype == np.float16:
        return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    return a @ b


def float_dtype(dtype: npt.DTypeLike) -> Any:
    """np.dtype for "float64" | "float32" | "float16" (a name or a NumPy type); ValueError otherwise."""
    name = dtype if isinstance(dtype, str) else None
    if name is None:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = repr(dtype)
    if name not in DTYPES:
        raise ValueError(f"dtype: unknown dtype {dtype!r}; use {', '.join(DTYPES)}")
    return np.dtype(DTYPES[name])


def fill_value(fill: str | float = "-1e9", dtype: Any = np.float64) -> Any:
    """The additive mask value for blocked cells, *in* ``dtype``.

    "-1e9" (or the number -1e9) is the lesson's finite stand-in; cast to float16
    it overflows to -inf, which is the point the lesson makes. "-inf" is the
    literal. "min" is the dtype's most negative finite value.
    """
    dtype = float_dtype(dtype)
    if isinstance(fill, (int, float)) and not isinstance(fill, bool):
        value = float(fill)
    elif fill == "-1e9":
        value = -1e9
    elif fill == "-inf":
        value = -np.inf
    elif fill == "min":
        return np.finfo(dtype).min
    else:
        raise ValueError(f'fill: unknown fill {fill!r}; use -1e9, "-inf" or "min"')
    with np.errstate(over="ignore"):
        return dtype.type(value)


def blocked_cells(
    kind: str = "causal",
    T: int = 1,
    T_k: int | None = None,
    padding: Any = (),
    window: Any | None = None,
    first: int = 0,
) -> Any:
    """Boolean (T, T') array, True where query t may not see key i.

    kind: a Scenario's kind (core/mask_kinds.py's rule): "causal" (i > t blocked), "none", or
    "window" (causal and i <= t - w blocked, a sliding window of width w). ``padding`` lists key positions
    (0-based) that no query may see. ``first``: the rows are queries first..first+T-1
    (a block of rows of a longer sequence).
    """
    T_k = T if T_k is None else T_k
    t = np.arange(first, first + T)[:, None]
    i = np.arange(T_k)[None, :]
    if kind not in MASKS:
        raise ValueError(f"mask: unknown mask {kind!r}; use one of {', '.join(MASKS)}")
    if MASK_KINDS[kind].windowed and (window is None or int(window) < 1):
        raise ValueError(f"window: a sliding window needs a width >= 1, got {window!r}")
    rule = MASK_KINDS[kind].rule
    assert rule is not None  # MASKS: a Scenario's kinds, each a rule (core/mask_kinds.py)
    blocked = rule(t, i, window)  # (T, T'), a new array: padding is set in it
    for p in padding:
        if not 0 <= int(p) < T_k:
            raise ValueError(f"padding: key position {p} is outside 0..{T_k - 1}")
        blocked[:, int(p)] = True
    return blocked


def additive_mask(blocked: Any, fill: str | float = "-1e9", dtype: npt.DTypeLike = np.float64) -> Any:
    """M with 0 where open and the fill where blocked, in ``dtype``. Shape of ``blocked``."""
    dtype = float_dtype(dtype)
    M = np.zeros(blocked.shape, dtype=dtype)
    M[blocked] = fill_value(fill, dtype)
    return M


def causal_mask(T: int, fill: float = -1e9, dtype: npt.DTypeLike = np.float64) -> Any:
    """Additive causal mask, shape (T, T): M[t, i] = 0 for i <= t, fill for i > t.

    >>> causal_mask(3)[0].tolist()
    [0.0, -1000000000.0, -1000000000.0]
    """
    return additive_mask(blocked_cells("causal", T), fill, dtype)


@dataclass(frozen=True, eq=False)
class Trace:
    """Every intermediate of one attention call (eq=False: arrays don't compare with ==).

    Q (T, d_k), K (T', d_k), V (T', d_v), S scaled scores before the mask (T, T'),
    M additive mask (T, T'), S_masked = S + M, A = softmax_row(S_masked) (T, T'),
    O = A V (T, d_v), H row entropies in bits (T,), eff = 2^H (T,).
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    S: np.ndarray
    M: np.ndarray
    S_masked: np.ndarray
    A: np.ndarray
    O: np.ndarray
    H: np.ndarray
    eff: np.ndarray
    blocked: np.ndarray
    scale: float
    nan_rows: tuple[Any, ...] = field(default=())

    @property
    def scores(self) -> Any:
        """S = scale · Q Kᵀ, (T, T'), before the mask."""
        return self.S

    @property
    def weights(self) -> Any:
        """A = softmax_row(S + M), (T, T'); each row sums to 1 (NaN for a fully masked -inf row)."""
        return self.A

    @property
    def output(self) -> Any:
        """O = A V, (T, d_v)."""
        return self.O

    # Ranks cost an SVD each; they are computed on first use, not on every keypress.
    @cached_property
    def rank_S(self) -> Any:
        """rank S <= min(rank Q, rank K) <= d_k (None if S has NaN/inf); see :func:`score_rank`."""
        return score_rank(self.S, self.Q, self.K, self.scale)

    @cached_property
    def rank_Q(self) -> Any:
        return numerical_rank(self.Q)

    @cached_property
    def rank_K(self) -> Any:
        return numerical_rank(self.K)

    @property
    def d_k(self) -> Any:
        return self.Q.shape[1]

    @property
    def dtype(self) -> Any:
        return self.A.dtype


def _check_additive(mask: Any) -> None:
    """An additive mask may hold 0, finite numbers and -inf; NaN or +inf would poison a row."""
    try:
        m = np.asarray(mask, dtype=np.float64)  # no copy when it is float64 already
    except (TypeError, ValueError):
        raise ValueError(f"mask: not a matrix of numbers (dtype {mask.dtype})") from None
    top = np.max(m) if m.size else 0.0  # one pass: NaN propagates through max, +inf is the max
    if not (np.isnan(top) or top == np.inf):
        return
    bad = np.argwhere(np.isnan(m) | (m == np.inf))
    if len(bad):
        r, c = (int(v) for v in bad[0])
        raise ValueError(f"mask: row {r + 1}, column {c + 1} is {m[r, c]}; use 0, a negative number or -inf")


def _mask_arrays(mask: Any, T: int, T_k: int, dtype: npt.DTypeLike) -> tuple[np.ndarray, np.ndarray]:
    """(blocked, M) of ``attention``'s mask: None (nothing blocked), a boolean array of blocked cells
    (filled with -1e9) or an additive array (a negative entry blocks)."""
    if mask is None:
        return np.zeros((T, T_k), dtype=bool), np.zeros((T, T_k), dtype=dtype)
    mask = np.asarray(mask)
    if mask.shape != (T, T_k):
        raise ValueError(f"mask: shape {mask.shape} must be {(T, T_k)} (queries x keys)")
    if mask.dtype == bool:
        return mask, additive_mask(mask, "-1e9", dtype)
    _check_additive(mask)
    with np.errstate(over="ignore"):
        M = mask.astype(dtype)
    return M < 0, M


def attention(Q: Any, K: Any, V: Any, mask: Any = None, scale: float | None = None, dtype: Any = np.float64) -> Trace:
    """Scaled dot-product attention returning a :class:`Trace`.

    Q: (T, d_k), K: (T', d_k), V: (T', d_v).
    mask: None, an additive (T, T') array, or a boolean (T, T') array of blocked
    cells (True = blocked, filled with -1e9).
    scale: None means 1/√d_k; a number replaces it.
    dtype: the float type every step is computed in (float16 really overflows).
    S = scale · Q Kᵀ,  A = softmax_row(S + M),  O = A V.
    """
    Q, K, V = check_matrix(Q, "Q"), check_matrix(K, "K"), check_matrix(V, "V")
    check_same(K.shape[1], Q.shape[1], "K", "columns (d_k) must match Q's")
    check_same(V.shape[0], K.shape[0], "V", "rows must match K's (one value per key)")
    dtype = float_dtype(dtype)
    T, d_k = Q.shape
    T_k = K.shape[0]
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    scale = float(scale)
    if not np.isfinite(scale):
        raise ValueError(f"scale: must be finite, got {scale}")
    blocked, M = _mask_arrays(mask, T, T_k, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        Qd, Kd, Vd = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
        S = matmul(Qd, Kd.T)  # (T, T')
        S *= dtype.type(scale)  # in place: the same product as (Q Kᵀ)·scale
        S_masked = S + M  # (T, T')
        A, sums = _softmax_sums(S_masked, axis=-1)  # (T, T')
        O = matmul(A, Vd)  # (T, d_v)
    H = row_entropies_bits(A)
    # A row of A holds a NaN exactly when its sum Σe does (each e <= 1 otherwise, Σe >= 1):
    # the NaN rows come from the T sums, not from another pass over the T x T' matrix.
    nan_rows = tuple(int(t) for t in np.flatnonzero(np.isnan(sums[:, 0])))
    return Trace(
        Q=Qd,
        K=Kd,
        V=Vd,
        S=S,
        M=M,
        S_masked=S_masked,
        A=A,
        O=O,
        H=H,
        eff=np.exp2(H),
        blocked=blocked,
        scale=scale,
        nan_rows=nan_rows,
    )

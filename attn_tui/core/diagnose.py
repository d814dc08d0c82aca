"""Why a row of A is NaN, and where a number overflowed its dtype.

A NaN row of A = softmax(S + M) has one of a few causes, and the lesson only
explains the first; the others are overflow, which the learner causes by typing big
numbers or turning the knob up:

- "masked":  every key of the row is blocked and the fill is -inf (or -1e9 that
  overflowed to -inf in float16): max = -inf, so -inf - (-inf) = NaN.
- "inputs":  Q or K holds ±inf or NaN after the cast to the dtype (X W_Q beyond its range).
- "scores":  a score S[t,i] = c·q·k/√d_k overflowed to ±inf (or inf - inf = NaN in the
  dot product): max = inf, so inf - inf = NaN.
- "sum":     S + M is -inf on every key although neither is (a large negative score
  plus the dtype-min fill overflows).
- "other":   none of the above (should not happen; said rather than guessed).

Pure NumPy; reads a Trace (shapes as there: Q (T, d_k), K (T', d_k), S, M (T, T')).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    from attn_tui.core.attention import Trace

SHORT = {
    "masked": "fully masked with fill -inf: -inf - (-inf) = NaN",
    "inputs": "Q/K overflowed {dtype}: {where}",
    "scores": "scores overflowed {dtype}: {where}, then inf - inf = NaN",
    "sum": "S + M overflowed to -inf on every key in {dtype}",
    "other": "a non-finite intermediate",
}


@dataclass(frozen=True)
class NanCause:
    """row: 0-based query row. kind: masked | inputs | scores | sum | other.
    where: the first offending cell, e.g. "S[2,1] = inf" (1-based, like the lesson)."""

    row: int
    kind: str
    where: str = ""
    dtype: str = "float64"

    @property
    def short(self) -> str:
        """A few words for the report's and the chart's parentheses."""
        return SHORT[self.kind].format(dtype=self.dtype, where=self.where)


def dtype_max(dtype: npt.DTypeLike) -> float:
    """Largest finite number of ``dtype`` (65504 for float16)."""
    return float(np.finfo(np.dtype(dtype)).max)


def first_bad(name: str, a: np.ndarray, row: int | None = None) -> str:
    """ "S[2,1] = inf" for the first non-finite cell of ``a`` (of row ``row`` if given)."""
    a = np.asarray(a)
    sub = a[row : row + 1] if row is not None else a
    bad = np.argwhere(~np.isfinite(sub))
    if not len(bad):
        return ""
    r, c = (int(v) for v in bad[0])
    r = r + (row or 0)
    return f"{name}[{r + 1},{c + 1}] = {_num(a[r, c])}"


def _num(x: Any) -> str:
    x = float(x)
    return "NaN" if np.isnan(x) else ("inf" if x > 0 else "-inf") if np.isinf(x) else f"{x:g}"


def nan_cause(trace: Trace, t: int) -> NanCause:
    """The cause of NaN in row ``t`` of ``trace.A`` (call only for a NaN row)."""
    dt = trace.S.dtype.name
    M_t, S_t = trace.M[t], trace.S[t]
    if trace.blocked[t].all() and np.all(np.isneginf(M_t)):
        return NanCause(t, "masked", dtype=dt)
    where = first_bad("Q", trace.Q, t) or first_bad("K", trace.K)
    if where:
        return NanCause(t, "inputs", where, dt)
    if not np.all(np.isfinite(S_t)):
        return NanCause(t, "scores", first_bad("S", trace.S, t), dt)
    if np.all(np.isneginf(trace.S_masked[t])):
        return NanCause(t, "sum", dtype=dt)
    return NanCause(t, "other", dtype=dt)


def nan_causes(trace: Trace) -> list[NanCause]:
    """One NanCause per NaN row of A, in row order."""
    return [nan_cause(trace, t) for t in trace.nan_rows]


def overflows(trace: Trace) -> list[str]:
    """Cells where Q, K, V or S hold ±inf/NaN (never the mask fill, which lives in M),
    e.g. ["S[2,1] = inf"]: the first offending cell of each matrix."""
    return [w for w in (first_bad(n, getattr(trace, n)) for n in ("Q", "K", "V", "S")) if w]


def ceiling_bits(blocked: Any) -> np.ndarray:
    """log₂ of the number of visible keys per row, (T,): the most bits a row can carry.

    NaN where a row sees no key at all (there is no ceiling; show it as "—")."""
    n_open = (~np.asarray(blocked, dtype=bool)).sum(axis=1).astype(np.float64)
    out = np.full(n_open.shape, np.nan)
    np.log2(n_open, out=out, where=n_open > 0)
    return out


NO_CEILING = "—"  # how every view writes the ceiling of a row that sees no key

"""Matrices computed on demand: what a screen shows of a T x T' trace, for large T.

:class:`LazyTrace` gives S, M, S + M, A, blocked and O of a scenario as core.lazy_matrix's
LazyMatrix objects (``.shape``, ``.dtype``, 2-D indexing, computed in tiles of ROWS x COLS
kept in a small LRU: drawing the visible cells of a grid costs about the same at T = 16384 as
at T = 64), computed by core.stream, with the attribute names of core.attention.Trace, so that
a view reading ``trace.A[t]`` works on either.

A needs each row's max m and sum l over all its keys: computed once per block of ROWS rows
by core.stream.row_stats (a pass over the row's T' keys, never a T x T' matrix), then any
tile of A is exp(S + M − m) / l (core.stream.weights). The pass and the tiles read S from the
same products (core.stream_source.Source.product), so m and l are those of the scores shown.
O = A V is row-wise: one row_stats pass per row block.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from . import stream
from .lazy_matrix import (  # noqa: F401  (re-exported: core.lazy's public names)
    CACHE,
    COLS,
    RECENT,
    LazyMatrix,
    LazyRows,
    remember_recent,
)
from .lazy_matrix import ROWS as ROWS
from .ranks import factor_rank, score_rank_qr, score_singular_values

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import numpy.typing as npt

    from attn_tui.core.scenario import Scenario

RECENT_BLOCKS = 4  # row blocks remembered (a screen shows 2-3 blocks of rows: more would warm what is gone)
NAMES = ("S", "M", "S_masked", "blocked", "A", "O")  # a LazyTrace's lazy matrices


class LazyTrace:
    """core.attention.Trace's matrices of scenario ``s``, computed when read (module doc).

    Q, K, V are plain arrays (T x d is small); S, M, S_masked, A, blocked, O are LazyMatrix;
    ``H_rows(r0, r1)`` gives row entropies in bits; ``bounds(name)`` a cheap (lo, hi) that
    contains every finite value of that matrix, before any whole-matrix pass."""

    _serials = itertools.count(1)

    def __init__(self, s: Scenario) -> None:
        self.scenario = s
        self.serial = next(self._serials)  # equal serials: the same matrices (a grid's version)
        self.src = src = stream.Source.of(s)
        self.scale = src.scale
        T, T_k, dt = src.T, src.T_k, src.dtype
        self.Q, self.K = src.Q, src.K
        self._stats: OrderedDict[Any, Any] = OrderedDict()
        self._recent_stats: OrderedDict[Any, Any] = OrderedDict()  # the row blocks read last
        self._lock = threading.RLock()
        self.S = LazyMatrix((T, T_k), dt, src.scores)
        self.M = LazyMatrix((T, T_k), dt, src.additive)
        self.S_masked = LazyMatrix((T, T_k), dt, self._masked)  # from S's and M's tiles: S computed once
        self.blocked = LazyMatrix((T, T_k), bool, src.blocked)
        self.A = LazyMatrix((T, T_k), dt, self._weights)
        d_v = T_k if src.V is None else src.V.shape[1]
        self.O = LazyMatrix((T, d_v), dt, self._output)

    @cached_property
    def V(self) -> Any:
        """V as given, or the identity (T' x T', lazily: O = A)."""
        src = self.src
        if src.V is not None:
            return src.V
        return LazyMatrix((src.T_k, src.T_k), src.dtype, lambda r0, r1, c0, c1: _eye(r0, r1, c0, c1, src.dtype))

    @property
    def dtype(self) -> Any:
        return self.src.dtype

    @cached_property
    def visible(self) -> np.ndarray:
        """(T,) keys each row may see (core.stream.Source.visible_keys)."""
        return self.src.visible_keys()

    @cached_property
    def nan_rows(self) -> tuple[Any, ...]:
        """Rows that see no key while the fill is −inf in the dtype (softmax of all −inf is NaN).
        Scores cannot overflow: the door (limits.admit) refuses such a scenario."""
        if np.isfinite(self.src.fill):
            return ()
        return tuple(int(t) for t in np.flatnonzero(self.visible == 0))

    @cached_property
    def H(self) -> Any:
        """Row entropies in bits, (T,), computed per row block when read."""
        return LazyRows(self.src.T, self.H_rows)

    @cached_property
    def eff(self) -> Any:
        """2^H, (T,): the effective number of keys each row attends to."""
        return LazyRows(self.src.T, lambda r0, r1: np.exp2(self.H_rows(r0, r1)))

    def rank_info(self) -> dict[Any, Any]:
        """lenses.rank_info's dict from QR factors of Q and K (core.ranks): no T x T' matrix."""
        src = self.src
        return {
            "S": score_rank_qr(src.Q, src.K, src.scale, src.dtype),
            "Q": factor_rank(src.Q),
            "K": factor_rank(src.K),
            "d_k": int(src.Q.shape[1]),
            "singular_values": score_singular_values(src.Q, src.K, src.scale),
        }

    @property
    def d_k(self) -> Any:
        return self.Q.shape[1]

    def stats(self, r0: int, r1: int) -> stream.RowStats:
        """core.stream.row_stats of the ROWS-aligned block holding rows r0:r1 (r1 − r0 <= ROWS), cached."""
        with self._lock:
            return self._stats_locked(r0)

    def _stats_locked(self, r0: int) -> stream.RowStats:
        b0 = (r0 // ROWS) * ROWS
        key = b0
        remember_recent(self._recent_stats, key, RECENT_BLOCKS)
        if key not in self._stats:
            self._stats[key] = stream.row_stats(self.src, b0, min(b0 + ROWS, self.src.T), top=0)
            if len(self._stats) > CACHE:
                self._stats.popitem(last=False)
        self._stats.move_to_end(key)
        return self._stats[key]

    def has_stats(self, b0: int) -> bool:
        with self._lock:
            return b0 in self._stats

    def warm(self, old: LazyTrace, cancelled: Any = lambda: False) -> None:
        """Compute the row blocks and tiles ``old`` (a trace of the same shape) gave last: the
        cells a screen showed of ``old`` are then read from this trace's caches, not computed
        on the event loop. Stops when ``cancelled()`` (a newer change came)."""
        for b0 in old.recent_blocks():
            if cancelled():
                return
            self.stats(b0, b0 + 1)
        for name in NAMES:
            getattr(self, name).warm(getattr(old, name).recent_keys(), cancelled)

    def recent_blocks(self) -> list[Any]:
        with self._lock:
            return list(self._recent_stats)

    def _each_block(self, r0: int, r1: int, fn: Callable[..., Any]) -> Any:
        parts = []
        for b0 in range((r0 // ROWS) * ROWS, r1, ROWS):
            a0, a1 = max(r0, b0), min(r1, b0 + ROWS)
            parts.append(fn(self.stats(a0, a1), a0 - b0, a1 - b0, a0, a1))
        return np.concatenate(parts) if parts else np.empty(0)

    def _masked(self, r0: int, r1: int, c0: int, c1: int) -> Any:
        """S + M from their tiles (core.stream.Source.masked's sum, bit for bit)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self.S.block(r0, r1, c0, c1) + self.M.block(r0, r1, c0, c1)

    def _weights(self, r0: int, r1: int, c0: int, c1: int) -> Any:
        def part(st: Any, i0: int, i1: int, a0: int, a1: int) -> Any:
            X = self.S_masked.block(a0, a1, c0, c1).astype(np.float64)  # the cells row_stats read (Source.product)
            return stream.weights(X, st.m[i0:i1], st.l[i0:i1], self.dtype)

        return self._each_block(r0, r1, part)

    def _output(self, r0: int, r1: int, c0: int, c1: int) -> Any:
        if self.src.V is None:
            return self._weights(r0, r1, c0, c1)
        return self._each_block(r0, r1, lambda st, i0, i1, a0, a1: st.O[i0:i1, c0:c1].astype(self.dtype))

    def H_rows(self, r0: int, r1: int) -> np.ndarray:
        """Row entropies of A in bits, rows r0:r1 (NaN for a row with no finite score)."""
        return self._each_block(r0, r1, lambda st, i0, i1, a0, a1: st.H[i0:i1])

    def bounds(self, name: str) -> Any:
        """(lo, hi) of ``name`` for a grid's colour scale, without a T x T' pass: A within [0, 1],
        O within V's range, M from the fill; S from its scores over a sample of rows
        (core.stream.score_range: exact up to 256 rows), a cell beyond it gets the end colour."""
        src = self.src
        if name in ("S", "S_masked"):
            lo, hi = (src.scale * v for v in stream.score_range(src.Q, src.K))
            lo, hi = min(lo, hi), max(lo, hi)
            if name == "S_masked" and np.isfinite(src.fill):
                lo += float(src.fill)
            return lo, hi
        if name == "M":
            return (float(src.fill) if np.isfinite(src.fill) else 0.0), 0.0
        if name == "A" or (name in ("O", "V") and src.V is None):  # V = I: O = A
            return 0.0, 1.0
        if name == "O":
            assert src.V is not None  # V = I returned above
            return float(src.V.min()), float(src.V.max())
        raise KeyError(name)


def warm_cost(old: LazyTrace, new: LazyTrace | None = None) -> int:
    """Multiply-adds (about) that ``new.warm(old)`` would spend on row statistics (``new`` None:
    a trace not built yet): each row block ``old`` read last that ``new`` has not computed is a
    pass over every key, d_k for S and d_v for O."""
    src = old.src
    d_v = 0 if src.V is None else src.V.shape[1]
    missing = [b0 for b0 in old.recent_blocks() if new is None or not new.has_stats(b0)]
    return len(missing) * ROWS * src.T_k * (src.Q.shape[1] + d_v)


def _eye(r0: int, r1: int, c0: int, c1: int, dtype: npt.DTypeLike) -> Any:
    return (np.arange(r0, r1)[:, None] == np.arange(c0, c1)[None, :]).astype(dtype)

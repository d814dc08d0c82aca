"""Matrices computed on demand: what a screen shows of a T x T' trace, for large T.

A :class:`LazyMatrix` has ``.shape``, ``.dtype``, ``.ndim`` and 2-D indexing
(``m[r, c0:c1]``, ``m[r0:r1, c0:c1]``, ``m[r]``, ``m[r, c]``) returning ndarrays (or a
scalar), computed from a function of (r0, r1, c0, c1) in tiles of ROWS x COLS kept in a
small LRU: drawing the visible cells of a grid costs about the same at T = 16384 as at
T = 64. :class:`LazyTrace` gives S, M, S + M, A, blocked and O of a scenario that way
(core.stream computes them), with the attribute names of core.attention.Trace, so that a
view reading ``trace.A[t]`` works on either.

A needs each row's max m and sum l over all its keys: computed once per block of ROWS rows
by core.stream.row_stats (a pass over the row's T' keys, never a T x T' matrix), then any
tile of A is exp(S + M − m) / l. O = A V is row-wise: one row_stats pass per row block.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from functools import cached_property

import numpy as np

from . import stream
from .ranks import factor_rank, score_rank_qr, score_singular_values

ROWS = 16  # rows per tile (a screen shows ~6-12 rows of a grid; 32 doubled the row-statistics pass per `+`)
COLS = 512  # columns per tile
CACHE = 64  # tiles kept per matrix (64 x 16 x 512 x 8 bytes = 4 MiB at most)
RECENT = 12  # tiles per matrix remembered as read last: what a screen showed, to warm a new trace with
RECENT_BLOCKS = 4  # row blocks remembered (a screen shows 2-3 blocks of rows: more would warm what is gone)
NAMES = ("S", "M", "S_masked", "blocked", "A", "O")  # a LazyTrace's lazy matrices


def _remember(recent: OrderedDict, key, size: int = RECENT) -> None:
    recent[key] = None
    recent.move_to_end(key)
    if len(recent) > size:
        recent.popitem(last=False)


def _span(key, n):
    """(start, stop, squeeze) of an int or a step-1 slice over n."""
    if isinstance(key, slice):
        start, stop, step = key.indices(n)
        if step != 1:
            raise IndexError("LazyMatrix: slices with a step are not supported")
        return start, max(start, stop), False
    i = int(key)
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"index {key} is out of bounds for size {n}")
    return i, i + 1, True


class LazyMatrix:
    """A (rows, cols) matrix whose tiles ``fn(r0, r1, c0, c1) -> ndarray`` are computed when read."""

    ndim = 2

    def __init__(self, shape, dtype, fn, rows=ROWS, cols=COLS, cache=CACHE):
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self._fn = fn
        self._rows, self._cols, self._cache_size = rows, cols, cache
        self._tiles: OrderedDict = OrderedDict()
        self._lock = threading.RLock()  # a lens worker and the event loop may read the same matrix
        self.computed = 0  # tiles computed so far (tests count them)
        self.recent: OrderedDict = OrderedDict()  # the keys of the tiles read last (see warm)

    def __len__(self):
        return self.shape[0]

    def _tile(self, i, j):
        with self._lock:
            return self._tile_locked(i, j)

    def _tile_locked(self, i, j):
        key = (i, j)
        _remember(self.recent, key)
        if key in self._tiles:
            self._tiles.move_to_end(key)
            return self._tiles[key]
        r0, c0 = i * self._rows, j * self._cols
        t = np.asarray(self._fn(r0, min(r0 + self._rows, self.shape[0]), c0, min(c0 + self._cols, self.shape[1])))
        self._tiles[key] = t
        self.computed += 1
        if len(self._tiles) > self._cache_size:
            self._tiles.popitem(last=False)
        return t

    def block(self, r0, r1, c0, c1) -> np.ndarray:
        """The ndarray of rows r0:r1, columns c0:c1, assembled from tiles; a few rows across
        many tiles (a chart's whole row of T' keys) are computed as they are asked, not as
        ROWS-row tiles, and kept in a small cache of their own."""
        if 0 < r1 - r0 <= 2 and (c1 - c0) > 4 * self._cols:
            with self._lock:
                key = ("rows", r0, r1, c0, c1)
                _remember(self.recent, key)
                if key not in self._tiles:
                    self._tiles[key] = np.asarray(self._fn(r0, r1, c0, c1))
                    self.computed += 1
                    if len(self._tiles) > self._cache_size:
                        self._tiles.popitem(last=False)
                self._tiles.move_to_end(key)
                return self._tiles[key].copy()
        out = np.empty((r1 - r0, c1 - c0), dtype=self.dtype)
        R, C = self._rows, self._cols
        for i in range(r0 // R, (r1 - 1) // R + 1 if r1 > r0 else r0 // R):
            for j in range(c0 // C, (c1 - 1) // C + 1 if c1 > c0 else c0 // C):
                t = self._tile(i, j)
                a0, a1 = max(r0, i * R), min(r1, (i + 1) * R)
                b0, b1 = max(c0, j * C), min(c1, (j + 1) * C)
                out[a0 - r0 : a1 - r0, b0 - c0 : b1 - c0] = t[a0 - i * R : a1 - i * R, b0 - j * C : b1 - j * C]
        return out

    def recent_keys(self) -> list:
        with self._lock:
            return list(self.recent)

    def warm(self, keys, cancelled=lambda: False) -> None:
        """Compute the tiles ``keys`` (another matrix's ``recent``, of the same shape) unless
        ``cancelled()`` says stop: a worker readies what the screen will read."""
        for key in keys:
            if cancelled():
                return
            if key[0] == "rows":
                self.block(*key[1:])
            else:
                self._tile(*key)

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key, slice(None))
        if len(key) != 2:
            raise IndexError("LazyMatrix: index with [rows, cols]")
        r0, r1, sq_r = _span(key[0], self.shape[0])
        c0, c1, sq_c = _span(key[1], self.shape[1])
        out = self.block(r0, r1, c0, c1)
        if sq_r and sq_c:
            return out[0, 0]
        return out[0] if sq_r else out[:, 0] if sq_c else out

    def __array__(self, dtype=None, copy=None):  # np.asarray(m): the whole matrix, for small shapes only
        a = self.block(0, self.shape[0], 0, self.shape[1])
        return a if dtype is None else a.astype(dtype)


class LazyTrace:
    """core.attention.Trace's matrices of scenario ``s``, computed when read (module doc).

    Q, K, V are plain arrays (T x d is small); S, M, S_masked, A, blocked, O are LazyMatrix;
    ``H_rows(r0, r1)`` gives row entropies in bits; ``bounds(name)`` a cheap (lo, hi) that
    contains every finite value of that matrix, before any whole-matrix pass."""

    _serials = itertools.count(1)

    def __init__(self, s):
        self.scenario = s
        self.serial = next(self._serials)  # equal serials: the same matrices (a grid's version)
        self.src = src = stream.Source.of(s)
        self.scale = src.scale
        T, T_k, dt = src.T, src.T_k, src.dtype
        self.Q, self.K = src.Q, src.K
        self._stats: OrderedDict = OrderedDict()
        self._recent_stats: OrderedDict = OrderedDict()  # the row blocks read last
        self._lock = threading.RLock()
        self.S = LazyMatrix((T, T_k), dt, src.scores)
        self.M = LazyMatrix((T, T_k), dt, src.additive)
        self.S_masked = LazyMatrix((T, T_k), dt, self._masked)  # from S's and M's tiles: S computed once
        self.blocked = LazyMatrix((T, T_k), bool, src.blocked)
        self.A = LazyMatrix((T, T_k), dt, self._weights)
        d_v = T_k if src.V is None else src.V.shape[1]
        self.O = LazyMatrix((T, d_v), dt, self._output)

    @cached_property
    def V(self):
        """V as given, or the identity (T' x T', lazily: O = A)."""
        src = self.src
        if src.V is not None:
            return src.V
        return LazyMatrix((src.T_k, src.T_k), src.dtype, lambda r0, r1, c0, c1: _eye(r0, r1, c0, c1, src.dtype))

    @property
    def dtype(self):
        return self.src.dtype

    @cached_property
    def visible(self) -> np.ndarray:
        """(T,) keys each row may see (core.stream.Source.visible_keys)."""
        return self.src.visible_keys()

    @cached_property
    def nan_rows(self) -> tuple:
        """Rows that see no key while the fill is −inf in the dtype (softmax of all −inf is NaN).
        Scores cannot overflow: the door (limits.admit) refuses such a scenario."""
        if np.isfinite(self.src.fill):
            return ()
        return tuple(int(t) for t in np.flatnonzero(self.visible == 0))

    @cached_property
    def H(self):
        """Row entropies in bits, (T,), computed per row block when read."""
        return LazyRows(self.src.T, self.H_rows)

    @cached_property
    def eff(self):
        """2^H, (T,): the effective number of keys each row attends to."""
        return LazyRows(self.src.T, lambda r0, r1: np.exp2(self.H_rows(r0, r1)))

    def rank_info(self) -> dict:
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
    def d_k(self):
        return self.Q.shape[1]

    def stats(self, r0, r1) -> stream.RowStats:
        """core.stream.row_stats of the ROWS-aligned block holding rows r0:r1 (r1 − r0 <= ROWS), cached."""
        with self._lock:
            return self._stats_locked(r0)

    def _stats_locked(self, r0) -> stream.RowStats:
        b0 = (r0 // ROWS) * ROWS
        key = b0
        _remember(self._recent_stats, key, RECENT_BLOCKS)
        if key not in self._stats:
            self._stats[key] = stream.row_stats(self.src, b0, min(b0 + ROWS, self.src.T), top=0)
            if len(self._stats) > CACHE:
                self._stats.popitem(last=False)
        self._stats.move_to_end(key)
        return self._stats[key]

    def has_stats(self, b0: int) -> bool:
        with self._lock:
            return b0 in self._stats

    def warm(self, old: LazyTrace, cancelled=lambda: False) -> None:
        """Compute the row blocks and tiles ``old`` (a trace of the same shape) gave last: the
        cells a screen showed of ``old`` are then read from this trace's caches, not computed
        on the event loop. Stops when ``cancelled()`` (a newer change came)."""
        for b0 in old.recent_blocks():
            if cancelled():
                return
            self.stats(b0, b0 + 1)
        for name in NAMES:
            getattr(self, name).warm(getattr(old, name).recent_keys(), cancelled)

    def recent_blocks(self) -> list:
        with self._lock:
            return list(self._recent_stats)

    def _each_block(self, r0, r1, fn):
        parts = []
        for b0 in range((r0 // ROWS) * ROWS, r1, ROWS):
            a0, a1 = max(r0, b0), min(r1, b0 + ROWS)
            parts.append(fn(self.stats(a0, a1), a0 - b0, a1 - b0, a0, a1))
        return np.concatenate(parts) if parts else np.empty(0)

    def _masked(self, r0, r1, c0, c1):
        """S + M from their tiles (core.stream.Source.masked's sum, bit for bit)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self.S.block(r0, r1, c0, c1) + self.M.block(r0, r1, c0, c1)

    def _weights(self, r0, r1, c0, c1):
        def part(st, i0, i1, a0, a1):
            m, l = st.m[i0:i1, None], st.l[i0:i1, None]  # noqa: E741
            X = self.S_masked.block(a0, a1, c0, c1).astype(np.float64)
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                # m is the row's max, from row_stats' own products; a tile read by another product
                # (BLAS rounds a 1-row and a 16-row QKᵀ differently) can exceed it by an ulp: cap at 0,
                # or A of a row's only key read 1 + 2e-16 and p(1 − p) < 0 in the gradient lens
                A = np.exp(np.minimum(X - np.where(np.isfinite(m), m, 0.0), 0.0)) / l
            return np.where(np.isfinite(m), A, np.nan).astype(self.dtype)

        return self._each_block(r0, r1, part)

    def _output(self, r0, r1, c0, c1):
        if self.src.V is None:
            return self._weights(r0, r1, c0, c1)
        return self._each_block(r0, r1, lambda st, i0, i1, a0, a1: st.O[i0:i1, c0:c1].astype(self.dtype))

    def H_rows(self, r0, r1) -> np.ndarray:
        """Row entropies of A in bits, rows r0:r1 (NaN for a row with no finite score)."""
        return self._each_block(r0, r1, lambda st, i0, i1, a0, a1: st.H[i0:i1])

    def bounds(self, name):
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


class LazyRows:
    """A (n,) vector computed in row blocks when read: v[t], v[t0:t1], len(v), np.asarray(v)."""

    ndim = 1

    def __init__(self, n, fn):
        self.shape = (int(n),)
        self._fn = fn

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, key):
        r0, r1, squeeze = _span(key, self.shape[0])
        out = np.asarray(self._fn(r0, r1), dtype=np.float64)
        return out[0] if squeeze else out

    def __array__(self, dtype=None, copy=None):
        a = self[0 : self.shape[0]]
        return a if dtype is None else a.astype(dtype)


def _eye(r0, r1, c0, c1, dtype):
    return (np.arange(r0, r1)[:, None] == np.arange(c0, c1)[None, :]).astype(dtype)

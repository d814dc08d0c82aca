"""A matrix (and a vector) computed on demand, in tiles kept in a small LRU bounded by bytes.

A :class:`LazyMatrix` has ``.shape``, ``.dtype``, ``.ndim`` and 2-D indexing
(``m[r, c0:c1]``, ``m[r0:r1, c0:c1]``, ``m[r]``, ``m[r, c]``) returning ndarrays (or a
scalar), computed from a function of (r0, r1, c0, c1) in tiles of ROWS x COLS kept in a
small LRU: drawing the visible cells of a grid costs about the same at T = 16384 as at
T = 64. :class:`LazyRows` is the (n,) vector of the same idea, computed in row blocks.
core.lazy.LazyTrace builds a large scenario's matrices from them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import numpy.typing as npt

ROWS = 16  # rows per tile (a screen shows ~6-12 rows of a grid; 32 doubled the row-statistics pass per `+`)
COLS = 512  # columns per tile
CACHE = 64  # row blocks of figures kept per trace (core.lazy.LazyTrace.stats: each a few KiB)
CACHE_BYTES = 4 * 2**20  # tiles kept per matrix, by their bytes (64 tiles of 16 x 512 float64)
RECENT = 12  # tiles per matrix remembered as read last: what a screen showed, to warm a new trace with


def remember_recent(recent: OrderedDict[Any, Any], key: object, size: int = RECENT) -> None:
    recent[key] = None
    recent.move_to_end(key)
    if len(recent) > size:
        recent.popitem(last=False)


def span(key: str, n: int) -> Any:
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

    def __init__(
        self,
        shape: Any,
        dtype: npt.DTypeLike,
        fn: Callable[..., Any],
        rows: Any = ROWS,
        cols: Any = COLS,
        cache_bytes: Any = CACHE_BYTES,
    ) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self._fn = fn
        self._rows, self._cols, self._cache_bytes = rows, cols, cache_bytes
        self._tiles: OrderedDict[Any, Any] = OrderedDict()
        self._held = 0  # bytes of the tiles kept
        self._lock = threading.RLock()  # a lens worker and the event loop may read the same matrix
        self.recent: OrderedDict[Any, Any] = OrderedDict()  # the keys of the tiles read last (see warm)

    def __len__(self) -> Any:
        return self.shape[0]

    def _tile(self, i: int, j: int) -> Any:
        with self._lock:
            return self._tile_locked(i, j)

    def _tile_locked(self, i: int, j: int) -> Any:
        key = (i, j)
        remember_recent(self.recent, key)
        if key in self._tiles:
            self._tiles.move_to_end(key)
            return self._tiles[key]
        r0, c0 = i * self._rows, j * self._cols
        t = np.asarray(self._fn(r0, min(r0 + self._rows, self.shape[0]), c0, min(c0 + self._cols, self.shape[1])))
        self._keep(key, t)
        return t

    def _keep(self, key: tuple[Any, ...], t: np.ndarray) -> None:
        """Keep tile ``t``, dropping the least recently read ones beyond CACHE_BYTES (``t`` itself stays)."""
        self._tiles[key] = t
        self._held += t.nbytes
        while self._held > self._cache_bytes and len(self._tiles) > 1:
            _, old = self._tiles.popitem(last=False)
            self._held -= old.nbytes

    def block(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """The ndarray of rows r0:r1, columns c0:c1, assembled from tiles; a few rows across
        many tiles (a chart's whole row of T' keys) are computed as they are asked, not as
        ROWS-row tiles, and kept in a small cache of their own."""
        if 0 < r1 - r0 <= 2 and (c1 - c0) > 4 * self._cols:
            with self._lock:
                key = ("rows", r0, r1, c0, c1)
                remember_recent(self.recent, key)
                if key not in self._tiles:
                    self._keep(key, np.asarray(self._fn(r0, r1, c0, c1)))
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

    def recent_keys(self) -> list[Any]:
        with self._lock:
            return list(self.recent)

    def warm(self, keys: Any, cancelled: Any = lambda: False) -> None:
        """Compute the tiles ``keys`` (another matrix's ``recent``, of the same shape) unless
        ``cancelled()`` says stop: a worker readies what the screen will read."""
        for key in keys:
            if cancelled():
                return
            if key[0] == "rows":
                self.block(*key[1:])
            else:
                self._tile(*key)

    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, tuple):
            key = (key, slice(None))
        if len(key) != 2:
            raise IndexError("LazyMatrix: index with [rows, cols]")
        r0, r1, sq_r = span(key[0], self.shape[0])
        c0, c1, sq_c = span(key[1], self.shape[1])
        out = self.block(r0, r1, c0, c1)
        if sq_r and sq_c:
            return out[0, 0]
        return out[0] if sq_r else out[:, 0] if sq_c else out

    def __array__(
        self, dtype: npt.DTypeLike | None = None, copy: bool | None = None
    ) -> Any:  # np.asarray(m): the whole matrix, for small shapes only
        a = self.block(0, self.shape[0], 0, self.shape[1])
        return a if dtype is None else a.astype(dtype)


class LazyRows:
    """A (n,) vector computed in row blocks when read: v[t], v[t0:t1], len(v), np.asarray(v)."""

    ndim = 1

    def __init__(self, n: int, fn: Callable[..., Any]) -> None:
        self.shape = (int(n),)
        self._fn = fn

    def __len__(self) -> Any:
        return self.shape[0]

    def __getitem__(self, key: Any) -> Any:
        r0, r1, squeeze = span(key, self.shape[0])
        out = np.asarray(self._fn(r0, r1), dtype=np.float64)
        return out[0] if squeeze else out

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> Any:
        a = self[0 : self.shape[0]]
        return a if dtype is None else a.astype(dtype)

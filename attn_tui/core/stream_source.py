"""What core.stream's row blocks read: a scenario's Q, K, V in its dtype with the mask's rule
(Source), and the figures of its arrays that are worth computing once per array object.

The inputs of a large scenario are shared by its states (a knob such as c changes no input), so
Q, K, V (projected, then cast), each array's finite range and row norms, and the range of Q Kᵀ
over a sample of rows are kept in small caches keyed on the arrays' ids: a keypress does not
project, copy or scan T x d matrices again. Scores are computed in the scenario's dtype, as
core.attention does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .attention import DTYPES, fill_value, matmul
from .finite import finite_range
from .lazy_matrix import COLS, ROWS  # the blocks of S's products are the explorer's tiles
from .mask_kinds import MASK_KINDS
from .matrices import INPUTS

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.scenario import Scenario

TILE = 2048  # keys per tile: a (core.stream.BLOCK, TILE) float64 tile is 4 MiB


def tile_ranges(n: int, tile: Any) -> Any:
    return ((c0, min(c0 + tile, n)) for c0 in range(0, n, tile))


_QKV: OrderedDict[Any, Any] = OrderedDict()  # (ids of the input arrays, dtype) -> (inputs, (Q, K, V)): the last few


_LOCK = threading.RLock()  # the module's caches are read by the event loop and by lens workers


def _qkv(s: Scenario, dt: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    with _LOCK:
        return _qkv_locked(s, dt)


def _qkv_locked(s: Scenario, dt: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    inputs = tuple(getattr(s, n) for n in INPUTS)
    key = (tuple(id(a) for a in inputs), dt.name)
    if key in _QKV:
        _QKV.move_to_end(key)
        return _QKV[key][1]
    Q, K, V = s.qkv() if s.projected else (s.Q, s.K, s.V)
    assert Q is not None and K is not None  # a scenario holds Q and K when it projects none (validate)
    with np.errstate(over="ignore", invalid="ignore"):
        Q, K = Q.astype(dt, copy=False), K.astype(dt, copy=False)
        V = None if V is None else V.astype(dt, copy=False)
    _QKV[key] = (inputs, (Q, K, V))  # the inputs are kept alive with it, so their ids stay theirs
    if len(_QKV) > 2:  # each holds T x d inputs and outputs: a few MiB to 100 MiB at T = 16384
        _QKV.popitem(last=False)
    return Q, K, V


_FACTS: OrderedDict[Any, Any] = OrderedDict()  # id(array) -> (array, (lo, hi, max row norm)): the last few


def facts(a: np.ndarray) -> tuple[float, float, float]:
    """(finite min, finite max, largest row norm) of a T x d array, once per array object (NaN, NaN
    when nothing is finite): the inputs of a large scenario are shared by its states, so a keypress
    does not scan them again."""
    with _LOCK:
        return _facts_locked(a)


def _facts_locked(a: np.ndarray) -> Any:
    key = id(a)
    if key in _FACTS and _FACTS[key][0] is a:
        return _FACTS[key][1]
    v = np.asarray(a, dtype=np.float64)
    lo, hi = finite_range(v)
    with np.errstate(over="ignore"):  # a row norm past float64's max is inf, as it should be
        out = (lo, hi, float(np.linalg.norm(v, axis=1).max()) if v.size else 0.0)
    _FACTS[key] = (a, out)
    if len(_FACTS) > 8:
        _FACTS.popitem(last=False)
    return out


SAMPLE_ROWS = 256  # rows of Q whose scores give a large S its colour scale


_RANGES: OrderedDict[Any, Any] = OrderedDict()  # (id(Q), id(K)) -> ((Q, K), (lo, hi)): the last few


def score_range(Q: np.ndarray, K: np.ndarray) -> tuple[float, float]:
    """(min, max) of Q Kᵀ over SAMPLE_ROWS rows of Q spread evenly from the first to the last
    (every row when T <= SAMPLE_ROWS: then exact) against every key, in float64; once per pair
    of arrays. S = scale · Q Kᵀ, so a knob that changes the scale reads it again for free. The
    Cauchy-Schwarz bound max‖q‖·max‖k‖ is ~4x too wide for random 256-wide rows: every cell of
    S would get the middle colour."""
    with _LOCK:
        key = (id(Q), id(K))
        hit = _RANGES.get(key)
        if hit is not None and hit[0][0] is Q and hit[0][1] is K:
            return hit[1]
    rows = np.unique(np.linspace(0, Q.shape[0] - 1, min(SAMPLE_ROWS, Q.shape[0])).round().astype(np.int64))
    Kd = K.astype(np.float64)
    lo, hi = np.inf, -np.inf
    for c0, c1 in tile_ranges(K.shape[0], 4 * TILE):  # (256, 8192) float64 at a time: 16 MiB
        P = Q[rows].astype(np.float64) @ Kd[c0:c1].T
        lo, hi = min(lo, float(P.min())), max(hi, float(P.max()))
    out = (lo, hi) if K.shape[0] and Q.shape[0] else (0.0, 0.0)
    with _LOCK:
        _RANGES[key] = ((Q, K), out)
        if len(_RANGES) > 4:
            _RANGES.popitem(last=False)
    return out


@dataclass(frozen=True, eq=False)
class Source:
    """What a row block needs: Q (T, d_k), K (T', d_k), V (T', d_v) or None (the identity,
    O = A), in the scenario's dtype, the scale, the mask's rule and its fill, in that dtype."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray | None
    scale: float
    mask: str
    window: int | None
    padding: tuple[Any, ...]  # 0-based key positions
    fill: np.floating[Any]  # a scalar of the dtype (−inf when -1e9 overflows float16)

    @classmethod
    def of(cls, s: Scenario) -> Source:
        """The source of scenario ``s`` (Q, K, V projected in float64, then cast, as Scenario.run).
        Q, K, V are shared with the last scenarios of the same inputs and dtype (a knob such as c
        changes no input): a keypress does not project or copy T x d matrices again."""
        dt = np.dtype(DTYPES[s.dtype])
        pad = tuple(p - 1 for p in s.padding)
        return cls(*_qkv(s, dt), float(s.scale), s.mask, s.window, pad, fill_value(s.fill, dt))

    @property
    def norms(self) -> tuple[float, float]:
        """(max‖q‖, max‖k‖) over the rows of Q and K: the Cauchy-Schwarz bound of |S| / |scale|."""
        return facts(self.Q)[2], facts(self.K)[2]

    @property
    def T(self) -> Any:
        return self.Q.shape[0]

    @property
    def T_k(self) -> Any:
        return self.K.shape[0]

    @property
    def dtype(self) -> Any:
        return self.Q.dtype

    def blocked(self, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> Any:
        """(r1−r0, c1−c0) bool, True where query t may not see key i (Scenario.blocked's rule)."""
        c1 = self.T_k if c1 is None else c1
        t = np.arange(r0, r1)[:, None]
        i = np.arange(c0, c1)[None, :]
        rule = MASK_KINDS[self.mask].rule
        assert rule is not None  # a Scenario's kind: each a rule (core/mask_kinds.py)
        b = rule(t, i, self.window)  # (r1 − r0, c1 − c0)
        if self.padding:
            b = b | np.isin(i, self.padding)
        return b

    def any_blocked(self, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> bool:
        """True when blocked(r0, r1, c0, c1) has a True cell, from the mask's rule (no matrix)."""
        c1 = self.T_k if c1 is None else c1
        if r1 <= r0 or c1 <= c0:
            return False
        first, last = self.span(r0, r1)
        if (first > c0).any() or (last < c1 - 1).any():  # a row's first seen key is past c0, or its last before c1 − 1
            return True
        return any(c0 <= p < c1 for p in self.padding)

    def span(self, r0: int, r1: int) -> tuple[np.ndarray, np.ndarray]:
        """(first, last) (r1 − r0,) each: the keys each query row of r0:r1 may see by the mask's rule are
        first..last (core/mask_kinds.py), padding aside."""
        span = MASK_KINDS[self.mask].span
        assert span is not None  # a Scenario's kind: each a rule with its span (core/mask_kinds.py)
        return span(np.arange(r0, r1), self.T_k, self.window)

    def visible_keys(self, r0: int = 0, r1: int | None = None) -> np.ndarray:
        """(r1 − r0,) how many keys each query row of r0:r1 (all T by default) may see, from the
        mask's rule (no T x T' matrix)."""
        first, last = self.span(r0, self.T if r1 is None else r1)
        n = np.maximum(0, last - first + 1)
        pad = np.unique(np.asarray(self.padding, dtype=np.int64))
        if pad.size:
            inside = np.searchsorted(pad, last, side="right") - np.searchsorted(pad, first, side="left")
            n = n - np.where(last >= first, inside, 0)
        return n

    def scores(self, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> Any:
        """S[r0:r1, c0:c1] = scale · Q Kᵀ in the dtype, each cell cut from its one product (product)."""
        c1 = self.T_k if c1 is None else c1
        out = np.empty((max(r1 - r0, 0), max(c1 - c0, 0)), dtype=self.dtype)
        scale = self.dtype.type(self.scale)
        cols = [(b0, min(b0 + COLS, self.T_k)) for b0 in range(c0 - c0 % COLS, c1, COLS)]
        keys = [  # per product column block: Kᵀ's block, the cells wanted of it, where they go
            (self.K[b0:b1].T, slice(max(c0, b0) - b0, min(c1, b1) - b0), slice(max(c0, b0) - c0, min(c1, b1) - c0))
            for b0, b1 in cols
        ]
        with np.errstate(over="ignore", invalid="ignore"):
            for a0 in range(r0 - r0 % ROWS, r1, ROWS):
                a1 = min(a0 + ROWS, self.T)
                i0, i1 = max(r0, a0), min(r1, a1)
                q, rows, dest = self.Q[a0:a1], slice(i0 - a0, i1 - a0), out[i0 - r0 : i1 - r0]
                for kt, want, to in keys:
                    np.multiply(matmul(q, kt)[rows, want], scale, out=dest[:, to])  # product's cells
        return out

    def product(self, a0: int, a1: int, b0: int, b1: int) -> np.ndarray:
        """scale · Q[a0:a1] K[b0:b1]ᵀ in the dtype: the one BLAS call that gives these cells of S.
        Every read of S (row_stats' statistics, a grid's tile, a chart's row, the summary) cuts
        its cells from the product of their ROWS x COLS block, so each cell has one value: a BLAS
        rounds a dot product differently in calls of other shapes (a 1-row call, a 16 x 735
        one), and m, l from one call with a tile from another put A's rows off 1 (issue 34:
        a float32 row at c = 1000 summed to 0.925)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return matmul(self.Q[a0:a1], self.K[b0:b1].T) * self.dtype.type(self.scale)  # as scores cuts them

    def additive(self, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> Any:
        """M[r0:r1, c0:c1]: 0 where open, the fill where blocked, in the dtype."""
        b = self.blocked(r0, r1, c0, c1)
        M = np.zeros(b.shape, dtype=self.dtype)
        M[b] = self.fill
        return M

    def masked(self, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> Any:
        """(S + M)[r0:r1, c0:c1] in the dtype."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self.scores(r0, r1, c0, c1) + self.additive(r0, r1, c0, c1)


def forget() -> None:
    """Empty this module's caches (Q, K, V; arrays' figures; score ranges): the next summary starts cold."""
    with _LOCK:
        for cache in (_QKV, _FACTS, _RANGES):
            cache.clear()

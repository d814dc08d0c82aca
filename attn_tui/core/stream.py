"""Attention for large T without a T x T' matrix: row blocks, and an online softmax over
column tiles (the way FlashAttention avoids storing S).

For a block of query rows the scores are produced one tile of keys at a time,

    S_tile = scale · Q[r0:r1] K[c0:c1]ᵀ,   X = S_tile + M_tile          (rows, tile)

and each row keeps a running maximum m, a running sum l = Σ e^(x−m), u = Σ e^(x−m)(x−m)
and acc = Σ e^(x−m) v. A new tile with a larger maximum m' rescales them by e^(m−m')
(u also gains (m−m')·l). After the last tile

    A = e^(x−m) / l,   H = log l − u / l  (nats),   O = acc / l,

so row entropies, O, the largest masked score and each row's top keys cost memory
O(rows · tile), never O(T · T'). Scores are computed in the scenario's dtype (as
core.attention does); the running statistics in float64. A row whose keys are all −inf
(a -inf fill over a fully masked row) has no maximum: its H and O are NaN, like the lesson's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .attention import DTYPES, fill_value, matmul

BLOCK = 256  # query rows per block
TILE = 2048  # keys per tile: a (BLOCK, TILE) float64 tile is 4 MiB


_QKV: OrderedDict = OrderedDict()  # (ids of the input arrays, dtype) -> (inputs, (Q, K, V)): the last few


_LOCK = threading.RLock()  # the module's caches are read by the event loop and by lens workers


def _qkv(s, dt):
    with _LOCK:
        return _qkv_locked(s, dt)


def _qkv_locked(s, dt):
    names = ("X", "W_Q", "W_K", "W_V", "Y", "Q", "K", "V")
    inputs = tuple(getattr(s, n) for n in names)
    key = (tuple(id(a) for a in inputs), dt.name)
    if key in _QKV:
        _QKV.move_to_end(key)
        return _QKV[key][1]
    Q, K, V = s.qkv() if s.projected else (s.Q, s.K, s.V)
    with np.errstate(over="ignore", invalid="ignore"):
        Q, K = Q.astype(dt, copy=False), K.astype(dt, copy=False)
        V = None if V is None else V.astype(dt, copy=False)
    _QKV[key] = (inputs, (Q, K, V))  # the inputs are kept alive with it, so their ids stay theirs
    if len(_QKV) > 2:  # each holds T x d inputs and outputs: a few MiB to 100 MiB at T = 16384
        _QKV.popitem(last=False)
    return Q, K, V


_FACTS: OrderedDict = OrderedDict()  # id(array) -> (array, (lo, hi, max row norm)): the last few


def facts(a) -> tuple[float, float, float]:
    """(finite min, finite max, largest row norm) of a T x d array, once per array object (NaN, NaN
    when nothing is finite): the inputs of a large scenario are shared by its states, so a keypress
    does not scan them again."""
    with _LOCK:
        return _facts_locked(a)


def _facts_locked(a):
    key = id(a)
    if key in _FACTS and _FACTS[key][0] is a:
        return _FACTS[key][1]
    v = np.asarray(a, dtype=np.float64)
    f = v[np.isfinite(v)]
    lo, hi = (float(f.min()), float(f.max())) if f.size else (float("nan"), float("nan"))
    with np.errstate(over="ignore"):  # a row norm past float64's max is inf, as it should be
        out = (lo, hi, float(np.linalg.norm(v, axis=1).max()) if v.size else 0.0)
    _FACTS[key] = (a, out)
    if len(_FACTS) > 8:
        _FACTS.popitem(last=False)
    return out


SAMPLE_ROWS = 256  # rows of Q whose scores give a large S its colour scale


_RANGES: OrderedDict = OrderedDict()  # (id(Q), id(K)) -> ((Q, K), (lo, hi)): the last few


def score_range(Q, K) -> tuple[float, float]:
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
    for c0, c1 in _tiles(K.shape[0], 4 * TILE):  # (256, 8192) float64 at a time: 16 MiB
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
    padding: tuple  # 0-based key positions
    fill: object  # a scalar of the dtype (−inf when -1e9 overflows float16)

    @classmethod
    def of(cls, s) -> Source:
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
    def T(self):
        return self.Q.shape[0]

    @property
    def T_k(self):
        return self.K.shape[0]

    @property
    def dtype(self):
        return self.Q.dtype

    def blocked(self, r0, r1, c0=0, c1=None):
        """(r1−r0, c1−c0) bool, True where query t may not see key i (Scenario.blocked's rule)."""
        c1 = self.T_k if c1 is None else c1
        t = np.arange(r0, r1)[:, None]
        i = np.arange(c0, c1)[None, :]
        if self.mask == "none":
            b = np.zeros((r1 - r0, c1 - c0), dtype=bool)
        else:
            b = i > t
            if self.mask == "window":
                b = b | (i <= t - int(self.window))
        if self.padding:
            b = b | np.isin(i, self.padding)
        return b

    def visible_keys(self) -> np.ndarray:
        """(T,) how many keys each query row may see, from the mask's rule (no T x T' matrix)."""
        t = np.arange(self.T)
        last = np.full(self.T, self.T_k - 1) if self.mask == "none" else np.minimum(t, self.T_k - 1)
        first = np.maximum(0, t - int(self.window) + 1) if self.mask == "window" else np.zeros(self.T, dtype=int)
        n = np.maximum(0, last - first + 1)
        pad = np.unique(np.asarray(self.padding, dtype=np.int64))
        if pad.size:
            inside = np.searchsorted(pad, last, side="right") - np.searchsorted(pad, first, side="left")
            n = n - np.where(last >= first, inside, 0)
        return n

    def scores(self, r0, r1, c0=0, c1=None):
        """S[r0:r1, c0:c1] = scale · Q Kᵀ in the dtype."""
        c1 = self.T_k if c1 is None else c1
        with np.errstate(over="ignore", invalid="ignore"):
            return matmul(self.Q[r0:r1], self.K[c0:c1].T) * self.dtype.type(self.scale)

    def additive(self, r0, r1, c0=0, c1=None):
        """M[r0:r1, c0:c1]: 0 where open, the fill where blocked, in the dtype."""
        b = self.blocked(r0, r1, c0, c1)
        M = np.zeros(b.shape, dtype=self.dtype)
        M[b] = self.fill
        return M

    def masked(self, r0, r1, c0=0, c1=None):
        """(S + M)[r0:r1, c0:c1] in the dtype."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self.scores(r0, r1, c0, c1) + self.additive(r0, r1, c0, c1)


@dataclass(frozen=True, eq=False)
class RowStats:
    """Whole-row figures of rows r0:r1 (each (rows,) unless said): H in bits, the row's
    log-sum-exp pieces m and l, O (rows, d_v) or None when V is the identity, top (rows, k)
    key positions by weight (−1 past the row's finite scores) with their weights top_w,
    max_blocked_w (the largest A over the row's masked cells, 0 when none), row_sums
    (Σ A, from a second pass; None unless asked)."""

    r0: int
    H: np.ndarray
    m: np.ndarray
    l: np.ndarray  # noqa: E741  (the FlashAttention name)
    O: np.ndarray | None
    top: np.ndarray
    top_w: np.ndarray
    max_blocked_w: np.ndarray
    row_sums: np.ndarray | None


def _tiles(n, tile):
    return ((c0, min(c0 + tile, n)) for c0 in range(0, n, tile))


def row_stats(src: Source, r0: int, r1: int, top: int = 3, sums: bool = False, tile: int = TILE) -> RowStats:
    """The online softmax over rows r0:r1 of ``src``, one tile of keys at a time (module doc)."""
    n = r1 - r0
    m = np.full(n, -np.inf)
    l = np.zeros(n)  # noqa: E741
    u = np.zeros(n)
    acc = None if src.V is None else np.zeros((n, src.V.shape[1]))
    mb = np.full(n, -np.inf)  # the largest masked score of each row
    k = min(top, src.T_k)
    best_x = np.full((n, k), -np.inf)
    best_i = np.full((n, k), -1, dtype=np.int64)
    open_tiles = _open_tiles(src, r0, r1, tile) if not (top or sums) else _tiles(src.T_k, tile)
    down = _v_down(src)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for c0, c1 in open_tiles:
            b = src.blocked(r0, r1, c0, c1)
            X = src.masked(r0, r1, c0, c1).astype(np.float64)  # (n, c1 − c0)
            mb = np.maximum(mb, np.where(b, X, -np.inf).max(axis=1))
            m_new = np.maximum(m, X.max(axis=1))
            ref = np.where(np.isfinite(m_new), m_new, 0.0)  # a row all −inf so far: nothing to rescale
            alpha = np.exp(m - ref)
            e = np.exp(X - ref[:, None])
            ex = np.where(e > 0, e * (X - ref[:, None]), 0.0)
            kept = alpha * l  # the old sum in the new reference; 0 when m − m' is below −745
            shift = np.where(kept > 0, kept * (m - ref), 0.0)  # never (−huge)·l: a "min" fill's m is ≈ −1.8e308
            u = alpha * u + shift + ex.sum(axis=1)
            l = alpha * l + e.sum(axis=1)  # noqa: E741
            if acc is not None:
                Vt = src.V[c0:c1].astype(np.float64)
                acc = alpha[:, None] * acc + e @ (Vt if down == 1.0 else Vt * down)
            m = m_new
            if k:
                best_x, best_i = _merge_top(best_x, best_i, X, c0, k)
        H = (np.log(l) - u / l) / np.log(2.0)
        H = np.where(np.isfinite(m), np.maximum(H, 0.0), np.nan)
        ok = np.isfinite(m)[:, None]
        w = np.where(ok, np.exp(best_x - np.where(ok, m[:, None], 0.0)) / l[:, None], np.nan)
        max_blocked_w = np.where(np.isfinite(mb), np.exp(mb - m) / l, 0.0)
        max_blocked_w = np.where(np.isfinite(m), max_blocked_w, np.nan)
        O = None if acc is None else np.where(ok, acc / l[:, None] / down, np.nan)
    rs = _row_sums(src, r0, r1, m, l, tile) if sums else None
    best_i = np.where(np.isfinite(best_x), best_i, -1)  # −1: no key (a row with fewer finite scores than k)
    return RowStats(r0, H, m, l, O, best_i, np.where(best_i >= 0, w, 0.0), max_blocked_w, rs)


def _v_down(src: Source) -> float:
    """1, or the power of two 2^-k (2^k >= 2 T') that V is scaled by inside row_stats' sum when
    max|V| · T' could overflow float64: the sum Σ e^(x−m) v is not yet divided by l (up to T'),
    so 600 keys of V = 1e308 gave O = inf where A V is 1e308. A power of two scales exactly
    (short of subnormals), and 1 leaves every other scenario's O bit for bit as it was."""
    if src.V is None:
        return 1.0
    lo, hi, _ = facts(src.V)
    big = max(abs(lo), abs(hi)) if np.isfinite(lo) else 0.0
    if big * src.T_k < float(np.finfo(np.float64).max) / 4:
        return 1.0
    return 2.0 ** -(int(np.ceil(np.log2(src.T_k))) + 1)


def _open_tiles(src: Source, r0: int, r1: int, tile: int):
    """The key tiles row_stats must pass over for rows r0:r1 when neither top keys nor row sums
    are asked: a tile that the mask blocks for every row (past the block's last row under a
    causal mask, before its first row's window) is left out when it adds exactly nothing: each of
    its weights e^(s + fill − m) is 0 in float64, because every row sees a key (so m >= −b) and
    s + fill − m <= 2b + fill < −800 with b = |scale| max‖q‖ max‖k‖ (Cauchy-Schwarz, and the
    dtype's rounding well inside the margin). Rows near the top of a causal T = 16384 matrix
    then pass over 1 tile of keys, not 8; m, l, H, O and the largest masked weight are as before."""
    every = list(_tiles(src.T_k, tile))
    if src.mask == "none" or r1 <= r0:
        return every
    q, k = src.norms
    b = abs(src.scale) * q * k
    if not (np.isfinite(b) and float(src.fill) + 2 * b < -800.0):
        return every
    if np.any(src.visible_keys()[r0:r1] == 0):
        return every
    first = r0 - int(src.window) + 1 if src.mask == "window" else 0  # keys below this are blocked for every row
    return [(c0, c1) for c0, c1 in every if c0 <= r1 - 1 and c1 > first]


def _merge_top(best_x, best_i, X, c0, k):
    """The k largest of (the running best, this tile) per row, largest first (equal weights: lower key first)."""
    vals = np.concatenate([best_x, X], axis=1)
    idx = np.concatenate([best_i, np.broadcast_to(np.arange(c0, c0 + X.shape[1]), X.shape)], axis=1)
    rows = np.arange(X.shape[0])[:, None]
    if vals.shape[1] > k:  # argpartition first: a full sort of every tile would cost T' log T' per row
        part = np.argpartition(-vals, k - 1, axis=1)[:, :k]
        vals, idx = vals[rows, part], idx[rows, part]
    order = np.lexsort((idx, -vals), axis=1)
    return vals[rows, order], idx[rows, order]


def _row_sums(src, r0, r1, m, l, tile):  # noqa: E741
    """Σ_i A[t, i] with the final m and l: a second pass over the tiles."""
    total = np.zeros(r1 - r0)
    ref = np.where(np.isfinite(m), m, 0.0)[:, None]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for c0, c1 in _tiles(src.T_k, tile):
            total += np.exp(src.masked(r0, r1, c0, c1).astype(np.float64) - ref).sum(axis=1)
        return np.where(np.isfinite(m), total / l, np.nan)


def blocks(T: int, block: int = BLOCK):
    """(r0, r1) of consecutive row blocks covering 0..T."""
    return _tiles(T, block)


def first_overflow(s, inputs, block: int = BLOCK):
    """limits.compute_problem without a T x T' matrix: (name, input cells, dtype, largest finite)
    for the first of Q, K, V, S with ±inf/NaN in the dtype, or None; O = A V, a weighted average of
    V's finite rows, cannot overflow (row_stats scales a huge V: _v_down). ``inputs(s, name, r, c)``
    names the input cells (limits._inputs)."""
    src = Source.of(s)
    top = float(np.finfo(src.dtype).max)
    for name, a in (("Q", src.Q), ("K", src.K), ("V", src.V)):
        if a is not None:
            bad = np.argwhere(~np.isfinite(a))
            if len(bad):
                return name, inputs(s, name, int(bad[0][0]), int(bad[0][1])), s.dtype, top
    if _cannot_overflow(src, top):
        return None
    for r0, r1 in blocks(src.T, block):  # O = A V is a weighted average of V's finite rows: it cannot overflow
        for c0, c1 in _tiles(src.T_k, TILE):
            bad = np.argwhere(~np.isfinite(src.scores(r0, r1, c0, c1)))
            if len(bad):
                return "S", inputs(s, "S", r0 + int(bad[0][0]), c0 + int(bad[0][1])), s.dtype, top
    return None


def _cannot_overflow(src: Source, top: float) -> bool:
    """True when no score can overflow the dtype: |S| <= |scale| max‖q‖ max‖k‖ (Cauchy-Schwarz),
    with room for the rounding of the dtype's own dot products; O = A V is a weighted average
    of V's rows, so it stays within V's finite range. Checked before any row block is scanned."""
    q, k = src.norms
    return abs(src.scale) * q * k < top / 2

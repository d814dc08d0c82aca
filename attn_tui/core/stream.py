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

The inputs of a block (Source) and the caches of per-array figures (facts, score_range) are in
core.stream_source; this module re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .stream_source import (  # noqa: F401  (re-exported: core.stream's public names and the caches tests read)
    _FACTS,
    _QKV,
    _RANGES,
    SAMPLE_ROWS,
    TILE,
    Source,
    _tiles,
    facts,
    score_range,
)

BLOCK = 256  # query rows per block


@dataclass(frozen=True, eq=False)
class RowStats:
    """Whole-row figures of rows r0:r1 (each (rows,) unless said): H in bits, the row's
    log-sum-exp pieces m and l, O (rows, d_v) or None when V is the identity, top (rows, k)
    key positions by weight (−1 past the row's finite scores) with their weights top_w,
    max_blocked_w (the largest A over the row's masked cells, 0 when none), row_sums
    (Σ of the weights as produced in the dtype, from a second pass; None unless asked)."""

    r0: int
    H: np.ndarray
    m: np.ndarray
    l: np.ndarray  # noqa: E741  (the FlashAttention name)
    O: np.ndarray | None
    top: np.ndarray
    top_w: np.ndarray
    max_blocked_w: np.ndarray
    row_sums: np.ndarray | None


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


def weights(X, m, l, dtype):  # noqa: E741
    """A = e^(X − m) / l of rows with max m and sum l (each (rows,)), X (rows, keys) of S + M
    in float64, rounded to ``dtype``: the weights the explorer shows (core.lazy) and the summary's
    row sums measure. A row with no finite max (no key it may see under a −inf fill) is NaN.
    X <= m holds exactly when X and m come from the same products (Source.product); the cap at 0
    is kept so that a row's weights stay within [0, 1] whatever a caller passes."""
    ok = np.isfinite(m)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        A = np.subtract(X, np.where(ok, m, 0.0)[:, None])  # in place from here: one (rows, keys) array
        np.minimum(A, 0.0, out=A)
        np.exp(A, out=A)
        np.divide(A, l[:, None], out=A)
    if not ok.all():
        A[~ok] = np.nan
    return A.astype(dtype, copy=False)


def _row_sums(src, r0, r1, m, l, tile):  # noqa: E741
    """Σ_i A[t, i] of the weights as produced in the dtype (weights): a second pass over the tiles.
    Not Σ e^(x−m) / l in float64, which is 1 by construction and hid float16's 6.5e-4 (issue 34)."""
    total = np.zeros(r1 - r0)
    for c0, c1 in _tiles(src.T_k, tile):
        X = src.masked(r0, r1, c0, c1).astype(np.float64, copy=False)
        total += weights(X, m, l, src.dtype).sum(axis=1, dtype=np.float64)
    return total  # NaN for a row with no finite max: its weights are NaN


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
        if a is not None and not np.isfinite(a).all():  # one pass in the usual case (per knob press)
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

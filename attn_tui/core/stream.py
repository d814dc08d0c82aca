"""Attention for large T without a T x T' matrix: row blocks, each over its key tiles in
two passes.

For a block of query rows the scores are produced one tile of keys at a time,

    S_tile = scale · Q[r0:r1] K[c0:c1]ᵀ,   X = S_tile + M_tile          (rows, tile)

and kept for the block (rows x T' in the dtype). The first pass takes each row's maximum m; the
second, per tile, e = e^(x−m) once and the sums l = Σ e, u = Σ e (x−m) and acc = Σ e v; then

    A = e / l,   H = log l − u / l  (nats),   O = acc / l.

FlashAttention's online softmax keeps only a tile and rescales l, u, acc by e^(m−m') whenever
a row's maximum grows; with the block's tiles kept, m is known before any exp, so nothing is
rescaled and each exp is computed once, also for the row sums of A, which need the final m and l
(the summary's pass at T = 16384: 8.3 s online, with a second pass of products and exps for the
row sums). Memory is O(rows · T'), never O(T · T'): 8 MiB of float32 tiles for 128 rows at
T' = 16384 (and 16 MiB of float64 e when the row sums are asked). Scores are computed in the
scenario's dtype (as core.attention does); the statistics in float64. A row whose keys are all
−inf (a -inf fill over a fully masked row) has no maximum: its H and O are NaN, like the lesson's.

The inputs of a block (Source) and the caches of per-array figures (facts, score_range) are in
core.stream_source; this module re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .stream_source import (  # noqa: F401  (re-exported: core.stream's public names)
    SAMPLE_ROWS,
    tile_ranges,
)
from .stream_source import TILE as TILE
from .stream_source import Source as Source
from .stream_source import facts as facts
from .stream_source import score_range as score_range

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    from attn_tui.core.scenario import Scenario

BLOCK = 128  # query rows per block (the summary's: 64, 128, 256 took 2.2, 2.0, 2.5 s at T = 16384)


@dataclass(frozen=True, eq=False)
class RowStats:
    """Whole-row figures of rows r0:r1 (each (rows,) unless said): H in bits, the row's
    log-sum-exp pieces m and l, O (rows, d_v) or None when V is the identity, top (rows, k)
    key positions by weight (−1 past the row's finite scores) with their weights top_w,
    max_blocked_w (the largest A over the row's masked cells, 0 when none), row_sums
    (Σ of the weights as produced in the dtype, from the second pass's e; None unless asked)."""

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
    """The softmax over rows r0:r1 of ``src`` in two passes over its key tiles (module doc).
    Without top keys, the tiles the mask blocks for every row are left out (_open_tiles)."""
    n = r1 - r0
    m = np.full(n, -np.inf)
    mb = np.full(n, -np.inf)  # the largest masked score of each row
    k = min(top, src.T_k)
    best_x = np.full((n, k), -np.inf)
    best_i = np.full((n, k), -1, dtype=np.int64)
    tiles = list(_open_tiles(src, r0, r1, tile) if not top else tile_ranges(src.T_k, tile))  # read by both passes
    Xs = []  # (n, c1 − c0) of S + M per tile, in the dtype
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for c0, c1 in tiles:  # the first pass: S + M, each row's max, its largest masked score, top keys
            X, b = _masked_tile(src, r0, r1, c0, c1)  # b None: nothing blocked in the tile
            Xs.append(X)
            m = np.maximum(m, X.max(axis=1))
            if b is not None:
                mb = np.maximum(mb, np.where(b, X, -np.inf).max(axis=1))
            if k:
                best_x, best_i = _merge_top(best_x, best_i, X.astype(np.float64), c0, k)
        l, u, acc, down = _second_pass(src, tiles, Xs, m, keep=sums)  # noqa: E741  (Xs: each tile's e, or None)
        H = (np.log(l) - u / l) / np.log(2.0)
        H = np.where(np.isfinite(m), np.maximum(H, 0.0), np.nan)
        ok = np.isfinite(m)[:, None]
        w = np.where(ok, np.exp(best_x - np.where(ok, m[:, None], 0.0)) / l[:, None], np.nan)
        max_blocked_w = np.where(np.isfinite(mb), np.exp(mb - m) / l, 0.0)
        max_blocked_w = np.where(np.isfinite(m), max_blocked_w, np.nan)
        O = None if acc is None else np.where(ok, acc / l[:, None] / down, np.nan)
        rs = _row_sums(Xs, l, src.dtype) if sums else None
    best_i = np.where(np.isfinite(best_x), best_i, -1)  # −1: no key (a row with fewer finite scores than k)
    return RowStats(r0, H, m, l, O, best_i, np.where(best_i >= 0, w, 0.0), max_blocked_w, rs)


def _second_pass(src: Source, tiles: Any, Xs: list[Any], m: np.ndarray, keep: bool) -> Any:
    """l = Σ e, u = Σ e (x − m), acc = Σ e v (or None) per row, e = e^(x − m) of each tile in
    float64, each tile's X replaced in ``Xs`` by its e when ``keep`` (the row sums' numerators),
    else by None; and the power of two V was scaled by (_v_down). A row with no finite max
    (all −inf) takes m = 0: its e are 0."""
    n = len(m)
    ref = np.where(np.isfinite(m), m, 0.0)[:, None]
    l, u = np.zeros(n), np.zeros(n)  # noqa: E741
    acc = None if src.V is None else np.zeros((n, src.V.shape[1]))
    down = _v_down(src)
    buf = np.empty((n, max((c1 - c0 for c0, c1 in tiles), default=0)))  # x − m of a tile: one buffer, kept warm
    for j, (c0, c1) in enumerate(tiles):
        D = np.subtract(Xs[j], ref, out=buf[:, : c1 - c0], dtype=np.float64)  # X read once, no float64 copy of it
        e = np.exp(D)
        l += e.sum(axis=1)
        u += _sum_e_d(e, D)
        if acc is not None:
            assert src.V is not None  # acc is kept only with a V (above)
            Vt = src.V[c0:c1].astype(np.float64)
            acc += e @ (Vt if down == 1.0 else Vt * down)
        Xs[j] = e if keep else None
    return l, u, acc, down


def _masked_tile(src: Source, r0: int, r1: int, c0: int, c1: int) -> Any:
    """(S + M)[r0:r1, c0:c1] in the dtype and its blocked cells, or (S, None) when the mask blocks
    none of them (most tiles of a causal or windowed matrix): no boolean matrix, no addition."""
    if not src.any_blocked(r0, r1, c0, c1):
        return src.scores(r0, r1, c0, c1), None
    b = src.blocked(r0, r1, c0, c1)
    M = np.zeros(b.shape, dtype=src.dtype)
    M[b] = src.fill
    with np.errstate(over="ignore", invalid="ignore"):
        return src.scores(r0, r1, c0, c1) + M, b  # Source.masked's sum, its blocked cells kept


def _sum_e_d(e: Any, D: Any) -> Any:
    """Σ e (x − m) per row, 0 where e is 0: 0 · (−inf) of a −inf score is NaN, and such rows
    (rare: a −inf fill, an overflowed score) are summed again with the zeros put in."""
    out = np.einsum("ij,ij->i", e, D)  # no (rows, tile) product array: half the time of (e * D).sum
    bad = np.isnan(out)
    if bad.any():
        eb = e[bad]
        out[bad] = np.where(eb > 0, eb * D[bad], 0.0).sum(axis=1)
    return out


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


def _open_tiles(src: Source, r0: int, r1: int, tile: int) -> Any:
    """The key tiles row_stats must pass over for rows r0:r1 when neither top keys nor row sums
    are asked: a tile that the mask blocks for every row (past the block's last row under a
    causal mask, before its first row's window) is left out when it adds exactly nothing: each of
    its weights e^(s + fill − m) is 0 in float64, because every row sees a key (so m >= −b) and
    s + fill − m <= 2b + fill < −800 with b = |scale| max‖q‖ max‖k‖ (Cauchy-Schwarz, and the
    dtype's rounding well inside the margin). Rows near the top of a causal T = 16384 matrix
    then pass over 1 tile of keys, not 8; m, l, H, O and the largest masked weight are as before."""
    every = list(tile_ranges(src.T_k, tile))
    if r1 <= r0:
        return every
    first, last = src.span(r0, r1)  # keys before min(first) or after max(last) are blocked for every row
    kept = [(c0, c1) for c0, c1 in every if c0 <= last.max() and c1 > first.min()]
    if len(kept) == len(every):  # no mask, or none to leave out
        return every
    q, k = src.norms
    b = abs(src.scale) * q * k
    if not (np.isfinite(b) and float(src.fill) + 2 * b < -800.0):
        return every
    if np.any(src.visible_keys(r0, r1) == 0):
        return every
    return kept


def _merge_top(best_x: Any, best_i: Any, X: np.ndarray, c0: int, k: int) -> Any:
    """The k largest of (the running best, this tile) per row, largest first (equal weights: lower key first)."""
    vals = np.concatenate([best_x, X], axis=1)
    idx = np.concatenate([best_i, np.broadcast_to(np.arange(c0, c0 + X.shape[1]), X.shape)], axis=1)
    rows = np.arange(X.shape[0])[:, None]
    if vals.shape[1] > k:  # argpartition first: a full sort of every tile would cost T' log T' per row
        part = np.argpartition(-vals, k - 1, axis=1)[:, :k]
        vals, idx = vals[rows, part], idx[rows, part]
    order = np.lexsort((idx, -vals), axis=1)
    return vals[rows, order], idx[rows, order]


def weights(X: np.ndarray, m: np.ndarray, l: np.ndarray, dtype: npt.DTypeLike) -> Any:  # noqa: E741
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


def _row_sums(es: Any, l: np.ndarray, dtype: npt.DTypeLike) -> Any:  # noqa: E741
    """Σ_i A[t, i] of the weights as produced in the dtype, e / l rounded to it (weights: the
    explorer's A, from the same e), over the tiles' e of _second_pass (a tile left out holds
    weights of exactly 0). Not Σ e / l in float64, which is 1 by construction and hid float16's
    6.5e-4 (issue 34). NaN for a row with no finite max (its l is 0)."""
    total = np.zeros(len(l))
    for e in es:
        A = np.divide(e, l[:, None], out=e if dtype == e.dtype else np.empty(e.shape, dtype), casting="same_kind")
        total += A.sum(axis=1, dtype=np.float64)  # e / l in float64, rounded once to the dtype on the way out
    return total


def blocks(T: int, block: int = BLOCK) -> Any:
    """(r0, r1) of consecutive row blocks covering 0..T."""
    return tile_ranges(T, block)


def first_overflow(s: Scenario, inputs: Any, block: int = BLOCK) -> Any:
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
        for c0, c1 in tile_ranges(src.T_k, TILE):
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

"""Attention rollout (Abnar & Zuidema 2020): how much each input token reaches each position
through every layer, reading attention alone.

Each layer's heads are averaged, and the residual stream is counted as half of what a position
keeps (a token also passes itself on, unchanged, around the attention):

    Ā_l = mean over heads of A_l          (T, T)
    Ã_l = ½ Ā_l + ½ I                      (a row of Ā_l that is fully masked: Ã_l's row is e_t)
    R   = Ã_{L−1} ⋯ Ã_1 Ã_0               (layer 0 applied first)

Each Ã_l is row-stochastic, so each row of R sums to 1. R[t, j] is rollout's estimate of how much
of position t after the last layer comes from input token j, under its assumptions: values, W_O
and the MLPs are left out, and the residual and the attention count half each. It needs the keys
to be the queries' own positions (T′ = T). Heads are read as their A already is (grouped K/V heads,
windows, additive masks: source.weights_block). A query row that sees no key (a padded token of an
additive mask: its A row is NaN, or a mean over blocked keys) has nothing to mix in: its row of Ã is
e_t, the position passing itself on, as Abnar & Zuidema's renormalised Ā + I gives; counted as 0 it
left R's rows summing to 0.25–0.98.

Up to WHOLE tokens R is formed whole (T × T); above, only the rows asked for, at most MAX_CELLS
numbers in all (the whole R's at WHOLE tokens). Either way the rows are carried down the layers
reading one head at a time (its Q and K, then its A in blocks of readings.ROWS rows), so memory stays
O(rows asked × T + one head + ROWS × T), never a layer's heads at once (16 heads of 16,384 tokens
and d_k 256 held in float64 took 1.5 GB).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..mask_kinds import MASK_KINDS
from .readings import ROWS
from .source import SEEN, HeadSource

if TYPE_CHECKING:
    from typing import Any

WHOLE = 512  # up to this many tokens the whole R; above, the query rows asked for
MAX_CELLS = WHOLE * WHOLE  # the numbers of R given at most: R whole at WHOLE tokens, or as many rows of R


def check_rollout(src: HeadSource) -> None:
    """ValueError (one line) when rollout cannot be read from ``src``: keys that are another sequence."""
    if src.T_k != src.T:
        raise ValueError(
            f"--rollout: the keys are another sequence (T' = {src.T_k}, T = {src.T}); rollout follows a "
            "position through the layers, so the keys must be the queries' own positions"
        )


def _carry(src: HeadSource, layer: int, r: np.ndarray, tell: Any) -> np.ndarray:
    """r Ã_layer for row vectors r (n, T): ½ r + ½ r Ā_layer, Ā_layer's heads read one at a time (each
    head's Q and K once, then its A in row blocks, only the blocks r has weight on: under a causal mask,
    rows ≤ t; keys past a block's seen width are blocked). A row that sees no key is e_t (_unseeing).
    ``tell()`` after each head."""
    T, H = src.T, src.n_heads
    dead = _unseeing(src, layer)
    live = r.copy() if dead.any() else r
    live[:, dead] = 0.0  # a row that sees no key: Ã's row is e_t, so r's weight there passes on whole
    out = r - 0.5 * live
    blocks = [(r0, min(T, r0 + ROWS)) for r0 in range(0, T, ROWS) if live[:, r0 : r0 + ROWS].any()]
    # Up to WHOLE tokens Ā itself is small (2 MiB): summed head by head, then one product. Above, r has
    # at most MAX_CELLS / T rows (16 at 16,384 tokens), each head's block multiplied into it as it comes.
    total = np.zeros((T, T)) if T <= WHOLE else None
    for h in range(H):  # one head's Q, K and a block of its A at a time: never every head of a layer
        block = src.weights_block(layer, h)
        for r0, r1 in blocks:
            w = src.seen_width(layer, r1)
            A = np.nan_to_num(block(r0, r1, w)[0], nan=0.0, copy=False)  # (r1 - r0, w)
            if total is not None:
                total[r0:r1, :w] += A
            else:
                out[:, :w] += (0.5 / H) * (live[:, r0:r1] @ A)
        tell()
    if total is not None:
        out += 0.5 * (live @ (total / H))
    return out


def _unseeing(src: HeadSource, layer: int) -> np.ndarray:
    """(T,) True for the query rows of ``layer`` that see no key: only an additive mask has them (a
    causal or window row sees itself), the same for every head of the layer; read in row blocks."""
    dead = np.zeros(src.T, bool)
    if MASK_KINDS[src.masks[layer][0]].stored:
        M = src.read("M", layer)  # (T, T'), read once (as weights_block does)
        for r0 in range(0, src.T, ROWS):
            dead[r0 : r0 + ROWS] = (M[r0 : r0 + ROWS] <= SEEN).all(axis=1)
    return dead


def _counter(src: HeadSource, progress: Any) -> Any:
    """tell(): ``progress(heads read, heads)`` after each head, when there is one (the CLI's progress line)."""
    done, total = [0], src.n_layers * src.n_heads

    def tell() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], total)

    return tell


def check_rows(n_rows: int, T: int) -> None:
    """ValueError (one line) when ``n_rows`` query rows of R would be more than the whole R's cells at
    WHOLE tokens: the one bound on rows, whether they are R whole or rows asked for (duplicates count)."""
    if n_rows * T > MAX_CELLS:
        most = MAX_CELLS // T
        raise ValueError(
            f"--query: {n_rows} rows of {T} tokens; rollout gives at most {MAX_CELLS:,} numbers "
            f"({WHOLE} x {WHOLE}), {most} row{'s' if most != 1 else ''} at {T} tokens: name fewer"
        )


def rollout(src: HeadSource, progress: Any | None = None) -> np.ndarray:
    """(T, T) R = Ã_{L−1} ⋯ Ã_0 (module doc), for T ≤ WHOLE (else ValueError: ask for rows);
    ``progress(done, total)`` is told the heads read after each head."""
    check_rollout(src)
    if src.T > WHOLE:
        raise ValueError(
            f"--rollout: {src.T} tokens; the whole T × T rollout is given up to {WHOLE}: "
            "name the rows you want with --query (positions from 1, e.g. --query 1,5)"
        )
    return rollout_rows(src, range(src.T), progress)  # e_t Ã_{L−1} ⋯ Ã_0 for every t: R whole


def rollout_rows(src: HeadSource, rows: Any, progress: Any | None = None) -> np.ndarray:
    """(len(rows), T) rows ``rows`` (0-based) of R, without forming any T × T matrix above WHOLE tokens:
    e_t Ã_{L−1} ⋯ Ã_0, the row vectors carried down from the last layer to the first (_carry: a head at
    a time); ``progress`` as rollout's. At most MAX_CELLS numbers (check_rows)."""
    check_rollout(src)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    T = src.T
    if rows.size and (rows.min() < 0 or rows.max() >= T):
        raise ValueError(f"--query: positions go from 1 to {T}")
    check_rows(rows.size, T)
    r = np.zeros((len(rows), T))
    r[np.arange(len(rows)), rows] = 1.0
    tell = _counter(src, progress)
    for layer in reversed(range(src.n_layers)):
        r = _carry(src, layer, r, tell)
    return r


def rollout_picture(src: HeadSource, bins: int = 16) -> np.ndarray | None:
    """(n, n) R pooled as the heads screen pools a head's A (layer_view: cell (a, b) the mean over the
    rows of bin a of their weight on the keys of bin b; rows sum to 1), or None when R is not formed
    whole here (keys of another sequence, more than WHOLE tokens)."""
    if src.T_k != src.T or src.T > WHOLE:
        return None
    from .layer_view import edges

    R, e = rollout(src), edges(src.T, bins)
    sums = np.add.reduceat(np.add.reduceat(R, e[:-1], axis=0), e[:-1], axis=1)  # (n, n) block sums
    return sums / np.diff(e)[:, None]

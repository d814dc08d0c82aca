"""Attention rollout (Abnar & Zuidema 2020): how much each input token reaches each position
through every layer, reading attention alone.

Each layer's heads are averaged, and the residual stream is counted as half of what a position
keeps (a token also passes itself on, unchanged, around the attention):

    Ā_l = mean over heads of A_l          (T, T)
    Ã_l = ½ Ā_l + ½ I
    R   = Ã_{L−1} ⋯ Ã_1 Ã_0               (layer 0 applied first)

Each Ã_l is row-stochastic, so each row of R sums to 1: R[t, j] is the share of position t's
mixture, after the last layer, that comes from input token j. It needs the keys to be the queries'
own positions (T′ = T). Heads are read as their A already is (grouped K/V heads, windows, additive
masks: source.weights_block); a fully masked (NaN) row of a head counts as 0 in the mean.

Up to WHOLE tokens R is formed whole (T × T); above, only the rows asked for, each pass over one
head's row block at a time (readings.ROWS rows), so memory stays O(rows asked × T + ROWS × T).
"""

from __future__ import annotations

import numpy as np

from .readings import ROWS
from .source import HeadSource

WHOLE = 512  # up to this many tokens the whole R; above, the query rows asked for


def check_rollout(src: HeadSource) -> None:
    """ValueError (one line) when rollout cannot be read from ``src``: keys that are another sequence."""
    if src.T_k != src.T:
        raise ValueError(
            f"--rollout: the keys are another sequence (T' = {src.T_k}, T = {src.T}); rollout follows a "
            "position through the layers, so the keys must be the queries' own positions"
        )


def mean_heads(src: HeadSource, layer: int):
    """A function (r0, r1) -> (r1 - r0, T) Ā_l's rows r0..r1-1: the mean over the layer's heads of
    their A (NaN as 0). Each head's Q and K are read once, here."""
    blocks = [src.weights_block(layer, h) for h in range(src.n_heads)]

    def rows(r0: int, r1: int) -> np.ndarray:
        total = np.zeros((r1 - r0, src.T_k))
        for block in blocks:
            total += np.nan_to_num(block(r0, r1)[0], nan=0.0)
        return total / src.n_heads

    return rows


def _tell(progress, layers_done: int, src: HeadSource) -> None:
    """``progress(heads read, heads)`` after each layer, when there is one (the CLI's progress line)."""
    if progress is not None:
        progress(layers_done * src.n_heads, src.n_layers * src.n_heads)


def rollout(src: HeadSource, progress=None) -> np.ndarray:
    """(T, T) R = Ã_{L−1} ⋯ Ã_0 (module doc), for T ≤ WHOLE (else ValueError: ask for rows);
    ``progress(done, total)`` is told the heads read after each layer."""
    check_rollout(src)
    if src.T > WHOLE:
        raise ValueError(
            f"--rollout: {src.T} tokens; the whole T × T rollout is given up to {WHOLE}: "
            "name the rows you want with --query (positions from 1, e.g. --query 1,5)"
        )
    T = src.T
    R = np.eye(T)
    for layer in range(src.n_layers):
        mean = mean_heads(src, layer)
        A_bar = np.vstack([mean(r0, min(T, r0 + ROWS)) for r0 in range(0, T, ROWS)])
        R = (0.5 * A_bar + 0.5 * np.eye(T)) @ R  # layer `layer` applied after the ones before it
        _tell(progress, layer + 1, src)
    return R


def rollout_rows(src: HeadSource, rows, progress=None) -> np.ndarray:
    """(len(rows), T) rows ``rows`` (0-based) of R, without forming any T × T matrix:
    e_t Ã_{L−1} ⋯ Ã_0, the row vector carried down from the last layer to the first, each Ã_l read in
    row blocks (only the blocks the vector has weight on: under a causal mask, rows ≤ t); ``progress``
    as rollout's."""
    check_rollout(src)
    rows = np.asarray(rows, dtype=np.int64)
    T = src.T
    if rows.size and (rows.min() < 0 or rows.max() >= T):
        raise ValueError(f"--query: positions go from 1 to {T}")
    r = np.zeros((len(rows), T))
    r[np.arange(len(rows)), rows] = 1.0
    for done, layer in enumerate(reversed(range(src.n_layers))):
        out, mean = 0.5 * r, mean_heads(src, layer)
        for r0 in range(0, T, ROWS):
            r1 = min(T, r0 + ROWS)
            if not r[:, r0:r1].any():
                continue  # no weight on these rows: their block adds nothing
            out += 0.5 * (r[:, r0:r1] @ mean(r0, r1))
        r = out
        _tell(progress, done + 1, src)
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

"""The one size decision of every door that reads an array file (.npz, .safetensors): the
single-head door (--scenario, the in-app open, `report`), the multi-head door (`heads`, `report
--layer/--head`, the heads screen, the token and model views, capture's own re-open) and capture
before its forward pass. A file is refused only for what one of its readers would really hold:
T, T' up to limits.MAX_T, widths up to limits.MAX_WIDTH, and the arrays a reader holds at once
(reader_sets) within limits.READER_BYTES; and, for a file on disk, within what its own bytes
back (reader_budget: READER_PER_STORED float64 bytes per byte it has on disk, or READER_FLOOR),
so that a sparse or compressed file of a few KB that promises 16,384 x 256 arrays cannot make a
reader hold hundreds of MB, while a real capture of the same shapes (its bytes on disk) opens.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .limits import (
    MAX_T,
    MAX_WIDTH,
    READER_BYTES,
    READER_FLOOR,
    READER_PER_STORED,
    TRACE_MATRICES,
    gib,
    trace_bytes,
)

if TYPE_CHECKING:
    from typing import Any


def stored_bytes(st: os.stat_result) -> int:
    """The bytes a file really has on disk: its blocks (a sparse file's holes hold none), at most its
    size (a block is 512 bytes in st_blocks; the last one is partly used); its size where the system
    counts no blocks (Windows)."""
    blocks = getattr(st, "st_blocks", None)
    return st.st_size if blocks is None else min(st.st_size, 512 * blocks)


def reader_budget(stored: int | None) -> int:
    """What one reader of a file with ``stored`` bytes on disk may hold (None: no file yet, capture
    before its forward: READER_BYTES)."""
    if stored is None:
        return READER_BYTES
    return min(READER_BYTES, max(READER_FLOOR, READER_PER_STORED * stored))


def _kib(nbytes: int) -> str:
    return f"{nbytes / 2**10:,.0f} KiB" if nbytes < 2**20 else gib(nbytes)


def reader_sets(
    T: int, T_k: int, d_k: int, d_v: int, d_model: int = 0, heads: int = 0, cross: bool = False
) -> dict[Any, Any]:
    """What one reader of an array file holds at once, in float64 bytes, by the arrays that make it up.

    ``heads`` 0: a single-head scenario (d_model: the width of X, Y and W_Q, W_K, W_V, else 0; Y
    only when ``cross``: self-attention reads X twice);
    ``heads`` H: a multi-head file, read a head at a time (d_model: the width of W_O, else 0).
    Every reader works through T x T' in row blocks (core.stream, core.lazy, heads.readings) and
    byte-bounded caches, so what grows with the file is a head's Q (T x d_k), K, V (T' x d) and,
    for a single head, its inputs; for a multi-head file the layer's W_O (H·d_v x d_model), read
    whole by the combine (whose sums are held a row block at a time: heads.combine)."""
    sets = {"Q, K, V of a head": 8 * (T * d_k + T_k * (d_k + d_v))}
    if heads and d_model:
        sets["W_O of a layer"] = 8 * heads * d_v * d_model
    elif d_model:
        sets["X, Y, W_Q, W_K, W_V"] = 8 * ((T + (T_k if cross else 0)) * d_model + d_model * (2 * d_k + d_v))
    return sets


def reader_problem(
    T: int,
    T_k: int,
    d_k: int,
    d_v: int,
    d_model: int = 0,
    heads: int = 0,
    cross: bool = False,
    stored: int | None = None,
) -> str | None:
    """The one size decision of every array-file door (MAX_T tokens, MAX_WIDTH wide, READER_BYTES
    held: reader_sets; for a file with ``stored`` bytes on disk, reader_budget held), as one line
    without the file's name; None when a reader can open it."""
    what, n = ("T", T) if T >= T_k else ("T'", T_k)
    if n > MAX_T:
        need = f"{gib(trace_bytes(T, T_k))} ({TRACE_MATRICES} of {T} x {T_k} in float64)"
        return f"{what} = {n} tokens; at most {MAX_T}: its T x T' matrices would need {need}"
    for key, d in (("d_k", d_k), ("d_v", d_v), ("d_model", d_model)):
        if d > MAX_WIDTH:
            return f"{key}: width {d}; widths (d_model, d_k, d_v) are at most {MAX_WIDTH:,}"
    for name, nbytes in reader_sets(T, T_k, d_k, d_v, d_model, heads, cross).items():
        if nbytes > READER_BYTES:
            return (
                f"{name}: {gib(nbytes)} in float64 at {n:,} tokens (d_k {d_k}, d_v {d_v}, d_model {d_model}); "
                f"a reader holds at most {gib(READER_BYTES)} at once"
            )
    budget = reader_budget(stored)
    for name, nbytes in reader_sets(T, T_k, d_k, d_v, d_model, heads, cross).items():
        if nbytes > budget:  # only with a file's bytes: reader_budget(None) is READER_BYTES, checked above
            assert stored is not None
            return (
                f"{name}: {gib(nbytes)} in float64 at {n:,} tokens (d_k {d_k}, d_v {d_v}, d_model {d_model}) "
                f"from {_kib(stored)} on disk (a sparse or compressed file); a reader holds at most "
                f"{gib(READER_FLOOR)}, or {READER_PER_STORED} x the file's bytes on disk"
            )
    return None

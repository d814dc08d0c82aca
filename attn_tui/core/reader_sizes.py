"""The one size decision of every door that reads an array file (.npz, .safetensors): the
single-head door (--scenario, the in-app open, `report`), the multi-head door (`heads`, `report
--layer/--head`, the heads screen, the token and model views, capture's own re-open) and capture
before its forward pass. A file is refused only for what one of its readers would really hold:
T, T' up to limits.MAX_T, widths up to limits.MAX_WIDTH, and the arrays a reader holds at once
(reader_sets) within limits.READER_BYTES.
"""

from __future__ import annotations

from .limits import MAX_T, MAX_WIDTH, READER_BYTES, TRACE_MATRICES, gib, trace_bytes


def reader_sets(T: int, T_k: int, d_k: int, d_v: int, d_model: int = 0, heads: int = 0, cross: bool = False) -> dict:
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
    T: int, T_k: int, d_k: int, d_v: int, d_model: int = 0, heads: int = 0, cross: bool = False
) -> str | None:
    """The one size decision of every array-file door (MAX_T tokens, MAX_WIDTH wide, READER_BYTES
    held: reader_sets), as one line without the file's name; None when a reader can open it."""
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
    return None

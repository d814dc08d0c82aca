"""One admission for a multi-head source, whatever the door (issue 44).

`attn-tui heads FILE`, `report --scenario FILE --layer L --head H` and `--scenario FILE` (the
explorer) open a file through multihead_io.open_file, which ends with admit_source: what the
single-head door (core.limits.admit) refuses in a head's Scenario is refused here for the whole
file, in its words, before any door computes a head: labels (control and format characters, an
empty label), each layer's scale (c = scale·√d_k within the knob's range), a window wider than the
door's tokens, an additive M holding NaN or +inf. What only a head's numbers show (S overflowing a
float16 file's dtype) is head_problem's line, asked by every door for each head it computes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..attention import DTYPES
from ..labeltext import stored_problem
from ..limits import MAX_LABEL, check_c, clean_label, compute_problem, overflow_message, printable, shown, window_limit
from ..mask_kinds import MASK_KINDS
from ..scenario import Scenario
from .source import HeadSource, check_head

if TYPE_CHECKING:
    from typing import Any


def admit_source(src: HeadSource) -> HeadSource:
    """``src`` if every door may open it; else ValueError, one line without the file's name (open_file
    adds it). Labels are judged by the single-head door's clean_label and kept as they are (a captured
    token's leading space is part of its label; a head's Scenario collapses it, as any door's), so
    they are judged as kept too (labeltext.stored_problem): "q\n\nall heads OK\r" passed the
    collapsed check and printed lines of its own in `heads --rollout`."""
    top = () if src.top is None else src.top.labels  # a capture's next tokens: labels as the tokens'
    for key, labels in (("tokens", src.tokens), ("key_tokens", src.key_tokens), ("top_tokens", top)):
        for i, x in enumerate(labels, 1):
            clean_label(x, f"{key}: label {i}")
            problem = stored_problem(x, MAX_LABEL)  # kept as stored: judged as stored, as shown and printed
            if problem:
                raise ValueError(f"{key}: label {i}: {problem}; labels are plain text")
    for layer, scale in enumerate(src.scales):
        try:
            check_c(scale * math.sqrt(src.d_k))
        except ValueError as exc:
            raise ValueError(f"scale: layer {layer} has {scale:g}, so {exc}") from None
    widest = window_limit(src.T, src.T_k)  # limits.admit's rule for a Scenario
    for layer, (kind, window) in enumerate(src.masks):
        if MASK_KINDS[kind].windowed and window > widest:
            raise ValueError(f"mask: layer {layer}: window: a width from 1 to {widest}, got {shown(window)}")
        if MASK_KINDS[kind].stored:
            _check_M(src.read("M", layer), layer)
    return src


def _check_M(M: np.ndarray, layer: int) -> None:
    """An additive mask holds numbers, -inf for a blocked key: NaN or +inf makes its rows NaN."""
    bad = np.isnan(M) | (M == np.inf)
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"M: layer {layer}, row {r + 1}, column {c + 1} is {M[r, c]:g}; an additive mask entry is a number, "
            "-inf for a blocked key"
        )


def head_problem(src: HeadSource, layer: int, head: int) -> str | None:
    """The one line limits.admit refuses this head's numbers with (its scores overflow the file's
    dtype: only float16 can, BOUND keeps float32 and float64 finite), prefixed with the head; None when
    they compute."""
    if src.dtype not in DTYPES or src.dtype in ("float32", "float64"):
        return None
    check_head(src, layer, head)
    Q, K = src.read("Q", layer, head), src.read("K", layer, src.kv_head[head])
    if _cannot_overflow(Q, K, float(src.scales[layer]), float(np.finfo(DTYPES[src.dtype]).max)):
        return None  # O(T·d_k): the whole check computes every score and output (hours on 64 x 64 long heads)
    V = src.read("V", layer, src.kv_head[head])
    keys = () if src.T_k == src.T and not src.key_tokens else src.key_tokens  # () is Scenario's default
    c = float(src.scales[layer] * math.sqrt(src.d_k))
    s = Scenario(title="head", tokens=src.tokens, Q=Q, K=K, V=V, mask="none", c=c, dtype=src.dtype, key_tokens=keys)
    problem = compute_problem(s)
    return None if problem is None else f"layer {layer}, head {head}: {overflow_message(problem)}"


def _cannot_overflow(Q: np.ndarray, K: np.ndarray, scale: float, top: float) -> bool:
    """True when no score of Q Kᵀ, scaled or not, nor any partial sum of one, can reach ``top``: each is
    at most max‖q‖·max‖k‖ (Cauchy–Schwarz, the sum of |q_i k_i| too), kept under half of ``top`` for
    the dtype's rounding. O = A V is a weighted mean of V's finite rows (its weights sum to 1), so then
    nothing overflows. False: the whole check (compute_problem) decides."""
    most = float(np.sqrt(np.max(np.einsum("td,td->t", Q, Q), initial=0.0)))
    most *= float(np.sqrt(np.max(np.einsum("td,td->t", K, K), initial=0.0)))
    return most * max(1.0, abs(scale)) < top / 2


def check_heads(src: HeadSource, name: str, heads: Any) -> None:
    """ValueError "NAME: layer L, head H: ..." for the first of ``heads`` ((layer, head) pairs) whose
    numbers do not compute (head_problem): every door asks it for the heads it computes."""
    for layer, head in heads:
        line = head_problem(src, layer, head)
        if line:
            raise ValueError(f"{printable(name)}: {line}")

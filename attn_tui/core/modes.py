"""Mode switches of a Scenario (mask, padding, fill, dtype, cross-attention) and the
lesson's explanation lines for what a mode does to the numbers.

Pure functions: Scenario in, Scenario out, or EditError with a one-line reason.
Padding positions are 1-based key positions, like the lesson's t1..tT.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .attention import DTYPES, FILLS, fill_value
from .diagnose import dtype_max, nan_causes, overflows
from .edit import EditError
from .mask_kinds import MASK_KINDS, SCENARIO_KINDS, label, spoken
from .scenario import Scenario

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.attention import Trace

FILL_LABELS = {"-1e9": "-1e9", "-inf": "-inf", "min": "dtype min"}


def causal_allowed(s: Scenario) -> tuple[bool, str]:
    """(may a causal/window mask be used?, why) -- the lesson's exercise 3."""
    if not s.cross:
        return True, "self-attention: token t may only read tokens 1..t"
    if s.T_k != s.T:
        return False, (
            f"cross-attention: Y has its own {s.T_k} positions, not X's {s.T}; "
            "'key after query' means nothing, and a source sequence is fully known"
        )
    mask = MASK_KINDS[s.mask] if MASK_KINDS[s.mask].hides else MASK_KINDS["causal"]  # the mask it has, or would take
    kind = mask.called
    return True, (
        f"cross-attention with T' = T: {kind} only makes sense if Y's position i is "
        "the same moment as X's position i (e.g. a second view of the same stream)"
    )


def set_mask(s: Scenario, kind: str, window: int | None = None) -> Scenario:
    """Mask "causal", "none" or "window" (sliding window of width ``window``, default 2)."""
    if kind not in SCENARIO_KINDS:
        raise EditError(f"mask: unknown mask {kind!r}; use {spoken(SCENARIO_KINDS)}")
    if MASK_KINDS[kind].hides:
        ok, why = causal_allowed(s)
        if not ok:
            raise EditError(f"mask: {kind} is not offered -- {why}")
    if MASK_KINDS[kind].windowed:
        w = window if window is not None else (s.window or 2)
        if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or not 1 <= w <= max(1, s.T_k):
            raise EditError(f"window: width {w!r} must be a whole number from 1 to {s.T_k}")
        return s.with_(mask=kind, window=int(w))
    return s.with_(mask=kind)


def set_padding(s: Scenario, positions: Any) -> Scenario:
    """Padded key positions (1-based); every query is blocked from them."""
    pos = sorted(set(positions))
    for p in pos:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 1 <= p <= s.T_k:
            raise EditError(f"padding: key position {p!r} is outside 1..{s.T_k}")
    return s.with_(padding=tuple(int(p) for p in pos))


def set_fill(s: Scenario, fill: str) -> Scenario:
    if fill not in FILLS:
        raise EditError(f"fill: unknown fill {fill!r}; use -1e9, -inf or min")
    return s.with_(fill=fill)


def set_dtype(s: Scenario, dtype: str) -> Scenario:
    if dtype not in DTYPES:
        raise EditError(f"dtype: unknown dtype {dtype!r}; use {', '.join(DTYPES)}")
    return s.with_(dtype=dtype)


def set_cross(s: Scenario, on: bool) -> tuple[Scenario, str]:
    """Switch cross-attention on (Y starts as a copy of X) or off. Returns (scenario, note).

    Turning it on drops a causal/window mask only when T' differs from T; padding
    is cleared either way because key positions change meaning.
    """
    if not s.projected:
        raise EditError(
            "cross: this scenario gives Q and K directly; cross-attention needs X "
            "(keys and values come from a second sequence Y through W_K, W_V)"
        )
    if on == s.cross:
        return s, "cross-attention is already " + ("on" if on else "off")
    if on:
        keys = tuple(f"y{i + 1}" for i in range(s.T))
        assert s.X is not None  # s.projected (checked above)
        new = s.with_(Y=s.X.copy(), key_tokens=keys, padding=())
        return new, (
            "cross-attention on: keys and values now come from Y (a copy of X to edit); "
            f"the mask stays {s.mask}: " + causal_allowed(new)[1]
        )
    return s.with_(Y=None, key_tokens=(), padding=()), "cross-attention off: keys and values come from X again"


def set_cross_keeping_padding(s: Scenario, on: bool) -> Any:
    """set_cross, then the padding positions that still exist among the new keys put back.

    Returns (scenario, note); the note says which padding was kept or dropped, so the
    status line's ``pad`` never changes silently.
    """
    new, note = set_cross(s, on)
    if new is s or not s.padding:
        return new, note
    keep = tuple(p for p in s.padding if p <= new.T_k)
    if keep and new.padding != keep:
        try:
            new = new.with_(padding=keep)
        except ValueError:
            pass
    lost = [p for p in s.padding if p not in new.padding]
    kept = [p for p in s.padding if p in new.padding]
    if kept:
        note += "; padding kept on key position " + ", ".join(map(str, kept))
    if lost:
        note += "; padding of key position " + ", ".join(map(str, lost)) + " dropped (b pads keys again)"
    return new, note


def summary(s: Scenario) -> str:
    """One line of the modes in force, e.g. ``mask causal · fill -1e9 · float64``."""
    mask = label(s.mask, s.window)
    parts = [f"mask {mask}", f"fill {FILL_LABELS[s.fill]}", s.dtype]
    if s.padding:
        parts.append("pad " + ",".join(str(p) for p in s.padding))
    if s.cross:
        parts.append(f"cross {s.T}x{s.T_k}")
    return " · ".join(parts)


def explanations(s: Scenario, trace: Trace) -> list[str]:
    """Short lines from the lesson for what the current modes do to ``trace``: each NaN
    row with its true cause (core.diagnose), an overflowing fill, any ±inf in Q/K/V/S."""
    lines = []
    blocked_rows = [t for t in range(s.T) if trace.blocked[t].all()]
    dt = np.dtype(DTYPES[s.dtype])
    big = f"{dtype_max(dt):g}"
    fv = fill_value(s.fill, dt)
    by_kind: dict[str, list[Any]] = {}
    for cause in nan_causes(trace):
        by_kind.setdefault(cause.kind, []).append(cause)
    # No masked cell: the fill is unused. A fully masked row's NaN sentence says it all already.
    if s.fill == "-1e9" and np.isinf(fv) and trace.blocked.any() and "masked" not in by_kind:
        lines.append(
            f"{s.dtype}: the -1e9 fill overflows to -inf (largest finite {s.dtype} is "
            f"{big}), so masked cells hold -inf; fill 'dtype min' stays finite."
        )
    for kind, causes in by_kind.items():
        rows = ", ".join(s.tokens[c.row] for c in causes)
        lines.append(f"NaN in row {rows}: " + _nan_sentence(kind, causes[0], s, big))
    finite_full = [t for t in blocked_rows if t not in trace.nan_rows]
    if finite_full:
        rows = ", ".join(s.tokens[t] for t in finite_full)
        lines.append(
            f"row {rows}: every key is masked; the finite fill keeps it a number, but it "
            "spreads over keys it should not see (batches ignore padded rows)."
        )
    ov = overflows(trace)
    if ov:
        lines.append(
            f"overflow in {s.dtype}: {', '.join(ov)} (beyond ±{big}, not a mask fill); "
            "the numbers computed from it are not to be trusted."
        )
    if s.cross and MASK_KINDS[s.mask].hides:
        lines.append(causal_allowed(s)[1])
    return lines


def explanations_large(s: Scenario, lz: Any) -> list[str]:
    """:func:`explanations` for a core.lazy.LazyTrace (T above DENSE_MAX), from each row's count of
    visible keys instead of the T x T' matrices: the fill's overflow, NaN rows (no key seen with
    a −inf fill) and rows whose finite fill spreads them over masked keys. Overflowing scores
    cannot occur there: limits.admit refuses them when the file is opened."""
    lines = []
    dt = np.dtype(DTYPES[s.dtype])
    big = f"{dtype_max(dt):g}"
    overflowed = s.fill == "-1e9" and np.isinf(fill_value(s.fill, dt)) and bool((lz.visible < s.T_k).any())
    if overflowed and not lz.nan_rows:  # a NaN row's sentence says it (as explanations does)
        lines.append(
            f"{s.dtype}: the -1e9 fill overflows to -inf (largest finite {s.dtype} is "
            f"{big}), so masked cells hold -inf; fill 'dtype min' stays finite."
        )
    blind = np.flatnonzero(lz.visible == 0)
    if lz.nan_rows:
        rows = ", ".join(s.tokens[t] for t in lz.nan_rows[:8]) + (" ..." if len(lz.nan_rows) > 8 else "")
        lines.append(f"NaN in row {rows}: " + _nan_sentence("masked", None, s, big))
    elif blind.size:
        rows = ", ".join(s.tokens[t] for t in blind[:8]) + (" ..." if blind.size > 8 else "")
        lines.append(
            f"row {rows}: every key is masked; the finite fill keeps it a number, but it "
            "spreads over keys it should not see (batches ignore padded rows)."
        )
    if s.cross and MASK_KINDS[s.mask].hides:
        lines.append(causal_allowed(s)[1])
    return lines


def _nan_sentence(kind: str, cause: Any, s: Scenario, big: str) -> str:
    """Why a row is NaN, one sentence per cause kind (see core.diagnose)."""
    if kind == "masked":
        fill = f"-1e9, which is -inf in {s.dtype} (largest finite {big})" if s.fill == "-1e9" else "-inf"
        finite = (
            "a finite constant chosen per dtype: here the dtype's min (f), since -1e9 itself overflows float16"
            if s.dtype == "float16"
            else "a finite fill (-1e9, or the dtype's min; f)"
        )
        return (
            f"every key is masked and the fill is {fill}, so the stable softmax computes "
            f"-inf - (-inf) = NaN. Frameworks mask with {finite}."
        )
    if kind == "inputs":
        return (
            f"{cause.where}: Q or K overflowed {s.dtype} (largest finite {big}), so its scores "
            "are not numbers. Use smaller inputs or a wider dtype; the mask is not to blame."
        )
    if kind == "scores":
        return (
            f"the score {cause.where} overflowed {s.dtype} (largest finite {big}), so the stable "
            "softmax computes inf - inf = NaN; the mask is not to blame. Lower c or the inputs, "
            "or use a wider dtype."
        )
    if kind == "sum":
        return (
            f"S + M is -inf on every key: a negative score plus the fill overflowed {s.dtype}, so -inf - (-inf) = NaN."
        )
    return "a non-finite intermediate (see the inspector)."

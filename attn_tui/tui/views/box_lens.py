"""The box-kernel lens as text: A beside Lesson 07's prefix average W_avg, exactly 0 apart when
W_Q = W_K = 0 (every score 0, κ ≡ 1) under the causal mask in self-attention; ``is_zeroed`` says whether
the switch (`z`, actions/lenses.py) is on. Pure: a State in, a Rich renderable out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.text import Text

from ...core import lenses
from ...core.mask_kinds import MASK_KINDS
from ..fmt import fmt, fmt_vec

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.state import State


def box_kernel_applies(s: Scenario) -> str | None:
    """None when A can be compared with W_avg, else why not (one line)."""
    if s.T != s.T_k:
        return "W_avg is Lesson 07's T×T prefix average: it needs self-attention (T' = T)."
    if not MASK_KINDS[s.mask].causal or s.padding:
        return f"W_avg is the causal prefix average; the mask now is {s.mask!r}{' with padding' if s.padding else ''}."
    return None


def is_zeroed(s: Scenario) -> bool:
    """True when the scores' projections (W_Q, W_K, or Q, K given directly) are all zero."""
    a, b = (s.W_Q, s.W_K) if s.projected else (s.Q, s.K)
    return not np.any(a) and not np.any(b)


def box_kernel(state: State) -> Group:
    """A against Lesson 07's W_avg; exactly 0 apart when W_Q = W_K = 0."""
    s, tr, t = state.scenario, state.trace, state.row
    names = "W_Q = W_K = 0" if s.projected else "Q = K = 0"
    on = is_zeroed(s)
    head = Text.assemble(("[z] ", "bold"), f"{names}: ", ("ON" if on else "off", "bold reverse" if on else "bold"))
    why = box_kernel_applies(s)
    if why:
        return Group(head, Text(why))
    if state.large:  # W_avg and A are T x T': compared on the selected row only
        w_row = (np.arange(s.T_k) <= t) / (t + 1.0)
        diff, over = lenses.max_abs_diff(tr.A[t], w_row), f"over row {t + 1} (of {s.T} rows)"
    else:
        W_avg = lenses.prefix_average(s.T)
        w_row, diff, over = W_avg[t], lenses.max_abs_diff(tr.A, W_avg), "over all of A"
    bound = lenses.rounding_bound(s.dtype)
    lines = [
        head,
        Text(
            "κ ≡ 1 (every score 0) is a box kernel: A collapses to W_avg."
            if on
            else "Switch on: every score becomes 0, κ ≡ 1, a box kernel."
        ),
        Text(f"A row {t + 1}      {fmt_vec(tr.A[t])}"),
        Text(f"W_avg row {t + 1}  {fmt_vec(w_row)}"),
        Text.assemble(f"max|A − W_avg| {over} = ", (fmt(diff) + (" (exactly)" if diff == 0 else ""), "bold")),
        Text(box_words(on, diff, bound, s.dtype)),
    ]
    return Group(*lines)


def box_words(on: bool, diff: float, bound: float, dtype: str) -> str:
    """Exactly W_avg, W_avg up to the dtype's rounding, or taps that content moved."""
    if diff == 0:
        return "Two lessons, one formula." if on else "A equals the 1/t average exactly here."
    if diff <= bound:
        return (
            f"A equals W_avg up to {dtype} rounding (≤ {fmt(bound, 2)}): two lessons, one formula."
            if on
            else f"A equals the 1/t average up to {dtype} rounding."
        )
    if np.isnan(diff):
        return "A has NaN entries: no comparison."
    return "The learned taps differ from the 1/t average: content decides."

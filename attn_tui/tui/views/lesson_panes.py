"""Panes that teach with the state's numbers: the correlation receiver, the equation with
the scenario's shapes, and the lesson's hand-crafted A read entry by entry.

Pure functions State -> Rich renderable (no Textual); the numbers come from the
state's trace and ``attn_tui.core.lenses``. Labels and titles come from user files,
so everything is Text, never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ...core import lenses
from ...core.mask_kinds import MASK_KINDS
from ..fmt import fmt, knob, short_vec
from . import teaching

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attn_tui.core.attention import Trace
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.state import State

MAX_KEYS = 8  # rows of the per-key table before "… n more"

RECEIVER_TITLE = "Correlation receiver  s_ti = q_t·k_i"
RECEIVER_HELP = (
    "s_t,i = q_t·k_i correlates one template (the query) against every stored waveform (the keys); "
    "softmax is a soft-argmax detector on the correlator outputs, and 1/√d_k normalises the noise "
    "floor."
)


def _scale_words(s: Scenario) -> str:
    if s.scaled:
        return f"c·q·k/√d_k, c = {knob(s.c, 2)}"
    return f"c·q·k unscaled, c = {knob(s.c, 2)}"


def correlation(state: State) -> Group:
    """The selected query correlated against every key: q_t·k_i, the scores, the peak and its margin."""
    s, tr, t = state.scenario, state.trace, state.row
    r = lenses.correlation_row(tr.Q, tr.K, t, tr.scale, tr.blocked)
    tab = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for h in ("key", "q_t·k_i", "score", "A_ti"):
        tab.add_column(h, justify="left" if h == "key" else "right", no_wrap=True)
    for n, i in enumerate(range(s.T_k)):
        if n == MAX_KEYS:
            tab.add_row(f"… {s.T_k - MAX_KEYS} more", "", "", "")
            break
        mark = "" if r["visible"][i] else "masked"
        tab.add_row(Text(s.key_labels[i]), fmt(r["raw"][i]), mark or fmt(r["scores"][i]), fmt(tr.A[t, i]))
    lines: list[RenderableType] = [
        Text(f"template q_t = {short_vec(tr.Q[t])} of {s.token_labels[t]!r}, every key:", style="bold"),
        tab,
        _detector_line(s, tr, t, r),
        _noise_line(s, r),
    ]
    return Group(*lines)


def _detector_line(s: Scenario, tr: Trace, t, r) -> Text:
    if r["peak"] is None:
        why = "every key is masked for this row" if not r["visible"].any() else "its scores are not finite"
        return Text(f"{why}: nothing to detect.", style="italic")
    p = r["peak"]
    if r["runner_up"] is None:
        return Text(f"peak {s.key_labels[p]!r}, the only key it sees: A = {fmt(tr.A[t, p])}.", style="italic")
    u, m = r["runner_up"], r["margin"]
    if m == 0:
        top = r["scores"][p]
        tied = [repr(s.key_labels[i]) for i in range(s.T_k) if r["visible"][i] and r["scores"][i] == top]
        return Text(
            f"the peak ties {len(tied)} keys ({', '.join(tied)}; margin 0): the soft-argmax splits "
            f"its weight among them ({fmt(tr.A[t, p])} each).",
            style="italic",
        )
    second = r["scores"][u]
    ties = [repr(s.key_labels[i]) for i in range(s.T_k) if r["visible"][i] and r["scores"][i] == second]
    who = f"the runner-up {ties[0]}" if len(ties) == 1 else f"the {len(ties)} runners-up ({', '.join(ties)})"
    return Text(
        f"peak {s.key_labels[p]!r} ({fmt(r['scores'][p])}), margin {fmt(m)} over {who}: the soft-argmax "
        f"gives it e^{fmt(m, 2)} = {fmt(r['ratio'], 2)}× the weight of {'each' if len(ties) > 1 else 'the runner-up'} "
        f"(A = {fmt(tr.A[t, p])}).",
        style="italic",
    )


def _noise_line(s: Scenario, r) -> Text:
    return Text(
        f"noise floor: for independent zero-mean unit-variance components q·k has sd √d_k = "
        f"{fmt(r['noise_sd'], 2)}; 1/√d_k returns it to 1. The scores here ({_scale_words(s)}) "
        f"have floor sd {fmt(r['noise_sd_scores'], 2)}."
    )


def equation(state: State) -> Text:
    """The equation as the app computes it now, and the pipeline's shapes on every edge."""
    s = state.scenario
    scores = "c·QKᵀ/√d_k" if s.scaled else "c·QKᵀ (unscaled)"
    T, Tk, dk, dv = s.T, s.T_k, s.d_k, s.d_v
    lines = [
        f"Attn(Q, K, V) = softmax({scores} + M) V",
        "",
        f"now: {s.title}",
        (
            f"T = {T}, T′ = {Tk}, d_k = {dk}, d_v = {dv}, c = {knob(s.c, 2)}, "
            f"{'scaled' if s.scaled else 'unscaled'}, mask {s.mask}"
        ),
        "",
    ]
    if s.projected:
        dm, src = s.d_model, ("Y" if s.cross else "X")
        lines += [
            f"X ({T}×{dm}) ─ W_Q ({dm}×{dk}) ─▶ Q = X W_Q ({T}×{dk})",
            f"{src} ({Tk}×{dm}) ─ W_K ({dm}×{dk}) ─▶ K = {src} W_K ({Tk}×{dk})",
            f"{src} ({Tk}×{dm}) ─ W_V ({dm}×{dv}) ─▶ V = {src} W_V ({Tk}×{dv})",
        ]
    else:
        lines.append(f"Q ({T}×{dk}) and K ({Tk}×{dk}) given; V ({Tk}×{dv})")
    lines += [f"S = {scores} ({T}×{Tk});  S + M ({T}×{Tk})", f"A = softmax(S + M) ({T}×{Tk});  O = A V ({T}×{dv})"]
    return Text("\n".join(lines))


def handcrafted(_state=None) -> Group:
    """The lesson's hand-crafted A (whatever the app shows), every entry, with H(A_t)."""
    s, tr = teaching.hand()
    tab = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    tab.add_column("A", justify="left", no_wrap=True)
    for k in s.keys:
        tab.add_column(k, justify="right", no_wrap=True)
    tab.add_column("H bits", justify="right", no_wrap=True)
    for t in range(s.T):
        cells = ["·" if tr.blocked[t, i] else f"{tr.A[t, i]:.3f}" for i in range(s.T_k)]
        tab.add_row(s.token_labels[t], *cells, f"{tr.H[t]:.2f}")
    return Group(Text("the lesson's hand-crafted Q, K (built-in lesson-handcrafted); · is masked"), tab)


def causal_check(state: State) -> Group:
    """Objective 4, live: the largest entry above A's diagonal and the row sums, for the state now."""
    s, tr = state.scenario, state.trace
    A = np.asarray(tr.A, dtype=np.float64)
    n = min(A.shape)
    upper = A[np.triu_indices(A.shape[0], 1, A.shape[1])] if n else np.zeros(0)
    top = float(np.nanmax(upper)) if upper.size and not np.all(np.isnan(upper)) else 0.0
    sums = A.sum(axis=1)
    shown = " ".join(fmt(x, 6) for x in sums[:8]) + (" …" if sums.size > 8 else "")
    if MASK_KINDS[s.mask].causal and not s.padding and not s.cross:
        verdict = "lower-triangular ✓" if top == 0 else "not lower-triangular"
    else:
        verdict = (
            f"mask {s.mask}{', padding' if s.padding else ''}{', cross-attention' if s.cross else ''}: no causal check"
        )
    return Group(
        Text(f"now: {s.title}"),
        Text.assemble("largest entry above the diagonal of A = ", (fmt(top), "bold"), f"   {verdict}"),
        Text(f"row sums = {shown}"),
        Text(f"A(1,1) = {fmt(A[0, 0])}" if A.size else "A is empty"),
    )


def hand_qk(_state=None) -> Group:
    """The lesson's hand-crafted Q and K (A is kept for after the prediction)."""
    s, tr = teaching.hand()
    tab = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    tab.add_column("token", justify="left", no_wrap=True)
    for name in ("Q", "K"):
        for j in range(s.d_k):
            tab.add_column(f"{name} d{j + 1}", justify="right", no_wrap=True)
    for t in range(s.T):
        tab.add_row(s.token_labels[t], *(fmt(x) for x in tr.Q[t]), *(fmt(x) for x in tr.K[t]))
    return Group(Text("the lesson's hand-crafted Q and K, both over the same d1…d4 (q·k pairs d_j with d_j)"), tab)

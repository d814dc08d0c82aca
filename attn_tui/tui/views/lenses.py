"""The lenses as text: pure functions State -> Rich renderable, one per lens, and PANELS, the lenses
screen's panels (the box kernel's in box_lens.py, the cost's in cost_lens.py; the rank lens, with its
chart, in rank_lens.py).

Each reads the state's trace (computed once by the core) and the core's lens
helpers; nothing here computes attention itself. Panels call these and show
the result, so the functions are testable without an app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.text import Text

from ...core import lenses
from ..fmt import fmt, fmt_vec, knob, short_vec
from . import lesson_panes
from .box_lens import box_kernel
from .cost_lens import cost
from .lens_table import table as _table

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attn_tui.tui.state import State

MAX_KEYS = 8  # rows of a per-key table before "… n more"


def _label(state: State, t=None) -> str:
    t = state.row if t is None else t
    return state.scenario.token_labels[t]


def nadaraya_watson(state: State) -> Group:
    """Row t of O from raw kernel weights κ_i = exp(s_ti), beside O's row."""
    tr, t, keys = state.trace, state.row, state.scenario.key_labels
    o_nw, kappa = lenses.nadaraya_watson_row(tr.Q, tr.K, tr.V, t, tr.scale, tr.blocked)
    den = kappa.sum()
    tab = _table("key", "s_ti", "κ_i = e^s", "κ_i/Σκ", "A_ti")
    order = range(len(keys))
    for n, i in enumerate(order):
        if n == MAX_KEYS:
            tab.add_row(f"… {len(keys) - MAX_KEYS} more", "", "", "", "")
            break
        if tr.blocked[t, i]:
            tab.add_row(Text(keys[i]), "masked", "0", "0", fmt(tr.A[t, i]))
        else:
            with np.errstate(invalid="ignore"):
                share = kappa[i] / den
            tab.add_row(Text(keys[i]), fmt(tr.S[t, i]), fmt(kappa[i]), fmt(share), fmt(tr.A[t, i]))
    diff = lenses.max_abs_diff(o_nw, tr.O[t])
    kap = "exp(c·q_t·k_i/√d_k)" if state.scenario.scaled else "exp(c·q_t·k_i), unscaled"
    lines: list[RenderableType] = [
        Text(f"row {_label(state)}:  o_t = Σ κ_i v_i / Σ κ_i", style="bold"),
        Text(f"κ_i = exp(s_ti) = {kap}, c = {knob(state.scenario.c, 2)}"),
        tab,
        Text(f"NW row  {fmt_vec(o_nw)}"),
        Text(f"O row   {fmt_vec(tr.O[t])}"),
        Text.assemble("max|NW − O| = ", (fmt(diff), "bold")),
    ]
    if not np.all(np.isfinite(kappa)):
        lines.append(
            Text(
                "κ overflowed to inf: raw exp without the max shift. That is why softmax subtracts the row max.",
                style="italic",
            )
        )
    return Group(*lines)


def memory(state: State) -> Group:
    """Probe (query) -> addresses (keys, ranked by weight) -> content (values mixed)."""
    s, tr, t = state.scenario, state.trace, state.row
    ranked = lenses.memory_lookup(tr.A[t], list(s.keys))
    tab = _table("address", "key k_i", "weight")
    for n, (i, name, w) in enumerate(ranked):
        if n == MAX_KEYS:
            tab.add_row(f"… {len(ranked) - MAX_KEYS} more", "", "")
            break
        tab.add_row(Text(name), "masked" if tr.blocked[t, i] else short_vec(tr.K[i]), fmt(w))
    top = [r for r in ranked if r[2] > 0][:3]
    mix = " + ".join(f"{fmt(w)}·v({name})" for _, name, w in top)
    more = " + …" if sum(1 for r in ranked if r[2] > 0) > 3 else ""
    content = ", ".join(f"{f} {fmt(x)}" for f, x in list(zip(s.value_features, tr.O[t]))[:6])
    if s.d_v > 6:  # o_t has d_v components: say so, as the vectors above do
        content += f", … ({s.d_v} in all)"
    return Group(
        Text.assemble(("probe  ", "bold"), f"q of {_label(state)!r} = {short_vec(tr.Q[t])}"),
        tab,
        Text.assemble(("content ", "bold"), f"o_t = {mix}{more}"),
        Text(f"        = [{content}]"),
        Text(memory_words(state, ranked), style="italic"),
    )


def memory_words(state: State, ranked) -> str:
    """The lookup in words: a hard hit, two addresses tied, or a spread read."""
    who = _label(state)
    if any(np.isnan(w) for _, _, w in ranked):
        return f"{who!r}'s row is NaN: no address can be read (every key masked)."
    (_, a, wa), *rest = ranked
    tied = [(name, w) for _, name, w in rest if w > 0 and abs(wa - w) <= 0.1 * wa]
    visible = ~np.asarray(state.trace.blocked[state.row])  # the keys this row may read
    others = [w for i, _, w in rest[len(tied) :] if visible[i]]
    if len(tied) >= 2:
        return _tie_words(who, wa, [w for _, w in tied], others)
    if tied:
        tied = [name for name, _ in tied]
        return f"{who!r} matches two addresses, {a!r} and {tied[0]!r}, and blends their contents."
    if wa >= 0.5:
        return f"{who!r} probes memory and reads back {a!r} with {fmt(wa, 2)} fidelity."
    eff = float(state.trace.eff[state.row])
    about = fmt(eff, 1) if eff < 100 else f"{eff:,.0f}"  # 2^H: "about 1,636", not "about 1635.7"
    return f"{who!r} spreads its read over about {about} addresses; top {a!r} ({fmt(wa, 2)})."


def _tie_words(who: str, wa: float, tied: list, others: list) -> str:
    """Three or more addresses at (about) the top weight: all of them, or a preference among the rest."""
    n = len(tied) + 1
    how = (
        f"equally ({fmt(wa)} each)"
        if all(np.isclose(w, wa, rtol=1e-9, atol=0) for w in tied)
        else f"about equally ({fmt(min(tied))}–{fmt(wa)})"
    )
    if not others:
        return f"{who!r} reads all {n} addresses it sees {how}: no content preference."
    return (
        f"{who!r} matches {n} addresses {how} and blends them; the other {len(others)} get at most {fmt(max(others))}."
    )


def gradient(state: State, scales=(0.5, 1, 2, 4, 8, 16)) -> Group:
    """p(1−p) of the row now, and as the multiplier c grows."""
    s, tr, t = state.scenario, state.trace, state.row
    p = np.asarray(tr.A[t], dtype=np.float64)
    base = np.asarray(tr.S[t], dtype=np.float64) / s.c  # the row's scores at c = 1
    rows = lenses.gradient_over_c(base, ~np.asarray(tr.blocked[t]), scales)
    tab = _table("c", "max p", "H bits", "max p(1−p)", "Σ p(1−p)")
    for r in rows:
        tab.add_row(fmt(r["c"], 2), fmt(r["max_p"]), fmt(r["H"]), fmt(r["max_grad"]), fmt(r["sum_grad"]))
    return Group(
        Text(f"row {_label(state)} at c = {knob(s.c, 2)}:  ∂p_i/∂s_i = p_i(1 − p_i)", style="bold"),
        Text(f"p       {fmt_vec(p)}"),
        Text(f"p(1−p)  {fmt_vec(lenses.jacobian_diag(p))}"),
        tab,
        Text(gradient_words(base, ~np.asarray(tr.blocked[t])), style="italic"),
    )


def gradient_words(scores, visible) -> str:
    """Where p(1−p) goes as c grows: to 0 when one key leads; to (1/k)(1 − 1/k) on k tied keys."""
    v = np.asarray(scores, dtype=np.float64)[np.asarray(visible, dtype=bool)]
    v = v[np.isfinite(v)]
    if v.size == 0:
        return "No visible finite score: no gradient to read."
    k = int(np.sum(v == v.max()))
    if k == 1:
        return "As c grows the leading p → 1 and every p(1−p) → 0: a saturated row passes no gradient."
    return (
        f"This row ties {k} keys at its top score: as c grows each of them goes to p → 1/{k} and keeps "
        f"p(1−p) = {fmt(lenses.jacobian_diag(1 / k))}; only the other keys' p(1−p) → 0. A row saturates "
        "toward one key only when one key leads."
    )


# The lenses screen's panels: id -> (view, title, one sentence of help), in screen order
# (the rank panel, with its chart, comes after the first four).
PANELS = {
    "lens-corr": (lesson_panes.correlation, lesson_panes.RECEIVER_TITLE, lesson_panes.RECEIVER_HELP),
    "lens-nw": (
        nadaraya_watson,
        "Kernel smoother  o_t = Σκv/Σκ, κ = exp(c·q·k/√d_k)",
        "Row t of O is a Nadaraya–Watson estimate; softmax's normalisation is the smoother's denominator.",
    ),
    "lens-box": (
        box_kernel,
        "Box kernel  W_Q = W_K = 0 ⇒ A = W_avg",
        "Lesson 07 is the special case κ ≡ 1: under the causal mask in self-attention, zero projections give "
        "the prefix average back, exactly.",
    ),
    "lens-memory": (
        memory,
        "Associative memory  probe → address → content",
        "Keys are addresses, values are contents, the query is a probe; the read-out is a convex mix.",
    ),
    "lens-gradient": (
        gradient,
        "Gradient  ∂p_i/∂s_i = p_i(1 − p_i)",
        "The softmax Jacobian's diagonal p(1−p) goes to 0 as p → 0 or 1; a row whose top k keys tie keeps "
        "p(1−p) = (1/k)(1 − 1/k) on them as c grows.",
    ),
    "lens-cost": (
        cost,
        "Cost  d_model(2d_k + d_v) params; S is T×T′",
        (
            "Parameters do not depend on T; the score matrix, T×T′, and its FLOPs grow as T² in self-attention "
            "(exercises 4, 5)."
        ),
    ),
}

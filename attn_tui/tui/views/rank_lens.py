"""The rank lens as text: rank S ≤ min(rank Q, rank K) ≤ d_k, σ(S), and the lesson's reading of them
(the d_k budget, A's own rank), under RANK_TITLE; the lenses screen shows it beside σ(S)'s chart.
Pure: a State in, a Rich renderable out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.text import Text

from ...core.mask_kinds import MASK_KINDS
from ..fmt import fmt

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.state import State

RANK_TITLE = "Rank  rank S ≤ min(rank Q, rank K) ≤ d_k"


def rank(state: State) -> Text:
    """rank S <= min(rank Q, rank K) <= d_k, the bilinear bound."""
    info = state.rank
    rs = "?" if info["S"] is None else str(info["S"])
    ok = info["S"] is not None and info["S"] <= min(info["Q"], info["K"]) <= info["d_k"]
    sv = np.asarray(info["singular_values"], dtype=np.float64)
    shown = " ".join(fmt(x, 2) for x in sv[:6]) + (" …" if sv.size > 6 else "")
    return Text.assemble(
        f"rank S = {rs}   rank Q = {info['Q']}   rank K = {info['K']}   d_k = {info['d_k']}\n",
        ("rank S ≤ min(rank Q, rank K) ≤ d_k " + ("✓" if ok else "(S not finite)"), "bold"),
        f"\nσ(S) = {shown}" if sv.size else "",
    )


def rank_reading(state: State) -> Group:
    """The rank lens's numbers for the state now, and the lesson's reading of them."""
    info = state.rank
    tr = state.trace
    rank_a = int(np.linalg.matrix_rank(np.nan_to_num(np.asarray(tr.A, dtype=np.float64)))) if not state.large else None
    return Group(rank(state), Text(rank_words(info, rank_a, state.scenario), style="italic"))


def rank_words(info: dict, rank_a: int | None, s: Scenario) -> str:
    """The lesson's reading of rank S: how many questions, the d_k budget (binding only when d_k is
    below T and T′), A's own rank (always full for a causal self-attention A: triangular, its diagonal
    positive)."""
    rs = info["S"]
    if rs is None:
        return "S is not finite: no rank to read."
    d_k = info["d_k"]
    asks = f"The queries ask only {rs} independent question{'s' if rs != 1 else ''}; "
    if d_k < min(s.T, s.T_k):
        budget = (
            f"a head with d_k = {d_k} dimensions can pose at most d_k, so a single head cannot realise "
            f"an arbitrary {'T×T' if s.T == s.T_k else 'T×T′'} pattern."
        )
    else:
        budget = f"d_k = {d_k} is not below T = {s.T} and T′ = {s.T_k} here, so d_k is no limit on this S."
    if MASK_KINDS[s.mask].causal and not s.cross and s.T == s.T_k and not s.padding:
        a_rank = (
            "A causal A is always full rank: lower-triangular with a positive diagonal (each row weighs its own key)."
        )
    else:
        a_rank = "Mask and softmax act after S, so A itself is generally full rank."
    here = "" if rank_a is None else f" Here rank A = {rank_a} while rank S = {rs}."
    return f"{asks}{budget} {a_rank}{here} The budget is on the scores."

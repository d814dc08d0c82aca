"""The cost lens (exercises 4 and 5): parameters, independent of T, and the score matrix's entries,
FLOPs and bytes, growing as T²; for a large scenario, how this explorer avoids storing S."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text

from ...core import lenses
from ...core.lazy import ROWS
from ...core.limits import gib
from ..fmt import fmt
from .lens_table import table as _table

if TYPE_CHECKING:
    from rich.console import RenderableType

    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.state import State

EX5_T = (5, 512, 4096, 32768)


def _bytes(n: int) -> str:
    """n bytes in the largest binary unit that keeps it short: 100 B, 1 MiB, 34.3 MiB (the table's
    byte column written out in full, 1,073,741,824, did not fit a lens beside its other numbers)."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{n} B"


def cost(state: State, scores: bool = True) -> Group:
    """Parameters (independent of T) and S's size and FLOPs (growing as T²); scores=False: the
    parameters only (the tour's exercise 4, which must not show exercise 5's answer)."""
    lines = _parameters(state.scenario)
    if scores:
        lines += _scores(state)
    return Group(*lines)


def _parameters(s: Scenario) -> list:
    """The scenario's parameter count now, and exercise 4's."""
    lines = []
    if s.projected:
        n = lenses.param_count(s.d_model, s.d_k, s.d_v)
        n_o = lenses.param_count(s.d_model, s.d_k, s.d_v, with_output=True)
        lines.append(
            Text(f"now: d_model(2d_k + d_v) = {s.d_model}·(2·{s.d_k} + {s.d_v}) = {fmt(n)}; + W_O = {fmt(n_o)}")
        )
    else:
        lines.append(Text("now: Q and K given directly, no projections to count."))
    n4 = lenses.param_count(384, 64, 64)
    n4o = lenses.param_count(384, 64, 64, with_output=True)
    lines.append(
        Text.assemble(
            ("Ex. 4 ", "bold"),
            "d_model = 384, d_k = d_v = 64: 384·(2·64 + 64) = ",
            (fmt(n4), "bold"),
            "; with W_O (64×384): ",
            (fmt(n4o), "bold"),
        )
    )
    return lines


def _scores(state: State) -> list:
    """S's entries and FLOPs now, exercise 5's table over T, and (large T) how this explorer avoids S."""
    s = state.scenario
    now = lenses.score_cost(s.T, s.d_k, s.d_v, T_k=s.T_k)
    lines: list[RenderableType] = [
        Text(
            f"now: S is T×T′ = {s.T}×{s.T_k} = {fmt(now['entries'])} entries; "
            f"QKᵀ costs 2·T·T′·d_k = {fmt(now['flops_S'])} FLOPs"
        ),
        Text.assemble(("Ex. 5 ", "bold"), f"self-attention: S is T×T; QKᵀ costs 2·T²·d_k FLOPs (d_k = {s.d_k}):"),
    ]
    tab = _table("T", "S entries", "FLOPs(S)", "S in fp32")
    Ts = sorted(set(EX5_T) | ({s.T} if s.T == s.T_k else set()))
    for T in Ts:
        c = lenses.score_cost(T, s.d_k)
        mark = " (now)" if T == s.T and s.T == s.T_k else ""
        tab.add_row(f"{T}{mark}", fmt(c["entries"]), fmt(c["flops_S"]), _bytes(4 * c["entries"]))
    lines.append(tab)
    lines.append(
        Text(
            "Doubling T quadruples S. Without a mask FlashAttention still does all 2T²d_k multiply-adds (QKᵀ and "
            "AV); under a causal mask FlashAttention-2 skips the tiles wholly above the diagonal, about half. It "
            "removes the T² memory and cuts the traffic, which still grows as T² (tiles, online softmax). "
            "A sliding window of w keys makes the work O(T·w); linear attention O(T·d²). Parameters do not "
            "grow with T.",
            style="italic",
        )
    )
    if state.large:  # this explorer itself does what FlashAttention does
        full = 8 * s.T * s.T_k
        lines.append(
            Text(
                f"here: S in float64 would be {gib(full)}; it is never stored. The cells on screen "
                f"are computed in tiles of {ROWS} rows, and each row's softmax over all its keys takes two passes "
                "over those rows' scores, a block of keys at a time: the max, then e^(s − max) and their sum "
                "(FlashAttention's online softmax does it in one, rescaling a running max and sum)."
            )
        )
    return lines

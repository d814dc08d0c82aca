"""What the softmax chart shows for the selected row: its scores and its softmax, titled
with c and H(A_t) against the log₂t ceiling, as in the lesson's animation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.diagnose import NO_CEILING, nan_cause
from ..state import State

NAN_WORDS = {"masked": "all masked, -inf fill", "inputs": "Q/K overflow", "scores": "S overflow",
             "sum": "S+M overflow", "other": "not a number"}


@dataclass(frozen=True, eq=False)
class ChartView:
    keys: tuple  # short key labels ("t1"), one per key
    blocked: np.ndarray  # (T',) True where the query may not see the key
    scores: np.ndarray  # (T',) row t of S
    weights: np.ndarray  # (T',) row t of A
    scores_title: str  # "c·q·k/√d_k" or "c·q·k" (unscaled); the chart adds its unit and the row
    row: str  # the query token's short label
    probs_title: str  # "A_t c=1.00 H=0.76/log₂4=2.00", or why the row is NaN
    border_title: str  # plain text; the chart adds " · top n/T'" when it shows fewer keys


def short(label: str) -> str:
    """A label's first word: "t4 it" -> "t4"."""
    return label.split()[0] if label.split() else label


def entropy_text(state: State) -> tuple[str, str]:
    """("0.46", "log₂4=2.00"): H(A_t) and the ceiling over the visible keys, or
    ("NaN", ...) for a NaN row and "—" as the ceiling of a row that sees no key."""
    t, tr = state.row, state.trace
    top = float(state.ceiling[t])
    ceiling = f"log₂{int((~tr.blocked[t]).sum())}={top:.2f}" if np.isfinite(top) else NO_CEILING
    h = float(tr.H[t])
    return ("NaN" if np.isnan(h) else f"{h:.2f}"), ceiling


def chart_view(state: State) -> ChartView:
    s, tr, t = state.scenario, state.trace, state.row
    h, ceiling = entropy_text(state)
    probs = (f"A_t NaN: {NAN_WORDS[nan_cause(tr, t).kind]}" if t in tr.nan_rows
             else f"A_t c={s.c:.2f} H={h}/{ceiling}")
    row = short(s.tokens[t])
    return ChartView(
        keys=tuple(short(k) for k in s.keys), blocked=tr.blocked[t], scores=tr.S[t], weights=tr.A[t],
        scores_title="c·q·k/√d_k" if s.scaled else "c·q·k", row=row, probs_title=probs,
        border_title=f"softmax row {row[:12]}: c={s.c:.3f} H={h} bits of {ceiling}")

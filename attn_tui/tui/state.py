"""The one state of the app: a scenario plus the UI's selections, immutable.

A change makes a new State; its trace is computed once, on first use, and every
pane reads from it. No UI imports here either, so the state is testable alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from ..core.diagnose import ceiling_bits
from ..core.lenses import rank_info
from ..core.limits import C_MAX, C_MIN  # the knob's range, the same as a file's
from ..core.modes import causal_allowed, explanations
from ..core.scenario import Scenario

C_STEP = 1.1  # `+`/`-` multiply/divide the scale multiplier c by this


@dataclass(frozen=True, eq=False)
class State:
    """scenario: inputs and settings (c, scaled, mask, fill, dtype live there).
    row: the selected query row t (0-based). cursor: (matrix name, row, col) of the
    cell cursor, or None. pin: a state the learner pinned to compare against (A and the
    entropy table show the difference, the charts a ghost of its row), or None.
    """

    scenario: Scenario
    row: int = 0
    cursor: tuple | None = None
    pin: State | None = None

    @classmethod
    def opening(cls, scenario: Scenario) -> State:
        """The state a scenario opens on: its focus_row (the row the lesson reads), else row 1."""
        return cls(scenario, row=(scenario.focus_row or 1) - 1)

    @cached_property
    def trace(self):
        return self.scenario.run()

    @cached_property
    def explanations(self) -> tuple:
        """The lesson's explanation lines for this state (NaN causes, fp16 fill, ...), computed once."""
        return tuple(explanations(self.scenario, self.trace))

    @cached_property
    def ceiling(self):
        """log₂ of the visible keys per row, (T,): the most bits row t can carry; NaN when it sees none."""
        return ceiling_bits(self.trace.blocked)

    @cached_property
    def rank(self) -> dict:
        """rank S, Q, K, d_k and S's singular values (one SVD per state, not per redraw)."""
        tr = self.trace
        return rank_info(tr.S, tr.Q, tr.K)

    @property
    def compared(self) -> State | None:
        """The pinned state when A can be compared with it cell by cell (same shape), else None."""
        p = self.pin
        return p if p is not None and p.trace.A.shape == self.trace.A.shape else None

    def toggle_pin(self) -> State:
        """Pin this state (A, H and the chart rows are then shown against it), or unpin."""
        return replace(self, pin=None if self.pin is not None else replace(self, pin=None))

    def with_(self, **changes) -> State:
        return replace(self, **changes)

    def with_scenario(self, **changes) -> State:
        """A new state whose scenario has ``changes``; the row is kept in range."""
        s = self.scenario.with_(**changes)
        return replace(self, scenario=s, row=min(self.row, s.T - 1))

    # -- the explorer's knobs, as pure functions -----------------------------
    def select_row(self, delta: int) -> State:
        """The row ``delta`` rows on, kept in range; this very state when that is no move."""
        row = max(0, min(self.scenario.T - 1, self.row + delta))
        return self if row == self.row else replace(self, row=row)

    def scale_by(self, factor: float) -> State:
        c = min(C_MAX, max(C_MIN, self.scenario.c * factor))
        return self.with_scenario(c=c)

    def reset_scale(self) -> State:
        """Back to the operating point: c = 1 and the 1/√d_k scaling on."""
        return self.with_scenario(c=1.0, scaled=True)

    def toggle_scaled(self) -> State:
        return self.with_scenario(scaled=not self.scenario.scaled)

    def toggle_mask(self) -> State:
        """causal <-> none (window counts as causal-like and goes to none).

        Raises Refused when causal makes no sense: cross-attention whose keys are a
        different sequence of another length (the lesson's exercise 3)."""
        s = self.scenario
        if s.mask == "none":
            ok, why = causal_allowed(s)
            if not ok:
                raise Refused(f"causal mask not offered: {why}")
        return self.with_scenario(mask="none" if s.mask != "none" else "causal")


class Refused(ValueError):
    """A knob that does not apply to this scenario; the message says why (for a notification)."""

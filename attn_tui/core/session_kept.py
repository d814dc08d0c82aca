"""What a kept session holds (Kept: the scenario, the view, the undo and redo steps, which head each
scenario was, the tour's place) and SessionError, the one-line refusal of a state file that cannot be used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .scenario import Scenario
from .session_heads import HeadAt, count_edits
from .session_tour import TourAt

if TYPE_CHECKING:
    from typing import Any


class SessionError(ValueError):
    """A state file that cannot be used; str() is the one-line reason."""


@dataclass(frozen=True, eq=False)
class Kept:
    """What a session keeps. row: 0-based; cursor: (matrix, row, col) or None; pin: (scenario, row) or None;
    past/future: the undo and redo stacks' scenarios, oldest first. head: the HeadAt the scenario
    was shown as, or None (one head); past_heads/future_heads: one HeadAt or None per step, or ()
    when no step was a head."""

    scenario: Scenario
    row: int = 0
    cursor: tuple[Any, ...] | None = None
    pin: tuple[Any, ...] | None = None
    past: tuple[Any, ...] = ()
    future: tuple[Any, ...] = ()
    why: str = "quit"
    source: str = ""
    saved: float = field(default_factory=time.time)
    head: HeadAt | None = None
    past_heads: tuple[Any, ...] = ()
    future_heads: tuple[Any, ...] = ()
    tour: TourAt | None = None  # the tour's page and answers (session_tour.py)
    weighting: str = "A"  # what A shows (key W): "A", "value" or "info" (core/heads/weighting.KINDS)

    @property
    def edits(self) -> int:
        """The undo steps that changed the scenario (a move between heads is none)."""
        return count_edits(len(self.past), self.past_heads, self.head)

    def summary(self) -> str:
        """How many edits, c, when and why it was kept."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved))
        n, t = self.edits, self.tour
        tour = f", the tour at {t.page!r} ({len(t.answers)} answered)" if t is not None else ""
        return f"{n} edit{'' if n == 1 else 's'}, c = {self.scenario.c:.4g}{tour}, kept {when} ({self.why})"

    def describe(self) -> str:
        """One line: the name, then the summary."""
        return f"{self.scenario.title!r}: {self.summary()}"

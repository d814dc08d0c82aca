"""The one state of the app: a scenario plus the UI's selections, immutable.

A change makes a new State; its trace is computed once, on first use, and every
pane reads from it. No UI imports here either, so the state is testable alone.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..core.diagnose import ceiling_bits
from ..core.limits import C_MAX, C_MIN, DENSE_MAX  # the knob's range, the same as a file's
from ..core.mask_kinds import MASK_KINDS
from ..core.matrices import shape as matrix_shape
from ..core.modes import causal_allowed, explanations, explanations_large
from ..core.scenario import Scenario
from .heads_nav import ONE_HEAD, HeadRef, scenario_of, stepped

C_STEP = 1.1  # `+`/`-` multiply/divide the scale multiplier c by this
# The traces of the last few scenarios, shared by their states: a state that only moves the row or
# the cursor keeps the trace (a LazyTrace its tiles, the grids their version, so they read nothing).
# Bounded: the undo history's scenarios do not keep theirs (8 MiB each at T = 512), an undo recomputes.
_TRACES: OrderedDict = OrderedDict()  # id(scenario) -> (scenario, trace); the scenario held, so its id stays its
KEEP = 4  # the current state's, the pinned one's, and the last changes' (a worker may be computing one)
_LOCK = threading.Lock()  # a worker (an edit, a large change) may ask for a trace too


def _cached(scenario: Scenario):
    with _LOCK:
        hit = _TRACES.get(id(scenario))
        if hit is None or hit[0] is not scenario:
            return None
        _TRACES.move_to_end(id(scenario))
        return hit[1]


def _trace_of(scenario: Scenario, large: bool):
    trace = _cached(scenario)
    if trace is None:
        if large:  # core.lazy (the streaming core) is imported by the first large scenario only
            from ..core.lazy import LazyTrace

            trace = LazyTrace(scenario)
        else:
            trace = scenario.run()  # computed outside the lock
        with _LOCK:
            _TRACES[id(scenario)] = (scenario, trace)
            while len(_TRACES) > KEEP:
                _TRACES.popitem(last=False)
    return trace


_LINEAGES = itertools.count(1)  # State.fresh: each new scenario's own number


@dataclass(frozen=True, eq=False)
class State:
    """scenario: inputs and settings (c, scaled, mask, fill, dtype live there).
    row: the selected query row t (0-based). cursor: (matrix name, row, col) of the
    cell cursor, or None. pin: a state the learner pinned to compare against (A and the
    entropy table show the difference, the charts a ghost of its row), or None.
    head: which head of a multi-head source the scenario is (heads_nav.HeadRef), or None for a
    scenario of one head (every knob works the same on both).
    weighting: what the A grid, the chart, the token view and the heads screen show of A (key W):
    "A" as is, "value" (A[t, j]·‖v_j‖/max‖v‖) or "info" (through W_O^(h), a source with W_O):
    core/heads/weighting.py; ``weighting_shown`` is the one in force, ``key_scale`` its (T',) scale.
    lineage: which scenario this state is an edit of. Another scenario (opened, random, a tour page's
    built-in, learned, new tokens) starts a new lineage (``fresh``); a pin is shown only within its own,
    so undo or redo across such a change never compares A with another scenario's.
    """

    scenario: Scenario
    row: int = 0
    cursor: tuple | None = None
    pin: State | None = None
    head: HeadRef | None = None
    weighting: str = "A"
    lineage: int = 0
    # what this state computed and keeps: its trace once read (``trace``); cold() and replace() start empty
    _computed: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def opening(cls, scenario: Scenario, head: HeadRef | None = None) -> State:
        """The state a scenario opens on: its focus_row (the row the lesson reads), else row 1."""
        return cls(scenario, row=(scenario.focus_row or 1) - 1, head=head)

    @cached_property
    def large(self) -> bool:
        """T or T' above DENSE_MAX: the trace is a core.lazy.LazyTrace, computed where it is read."""
        return max(self.scenario.T, self.scenario.T_k) > DENSE_MAX

    @property
    def trace(self):
        """The full trace (core.attention.Trace); for a large scenario a LazyTrace with the same
        names, whose matrices compute only the cells that are read. Shared with the other states
        of the same scenario while it is one of the last few (_TRACES)."""
        if "trace" not in self._computed:
            self._computed["trace"] = _trace_of(self.scenario, self.large)
        return self._computed["trace"]

    @property
    def built_trace(self):
        """The trace if it exists already (this state's, or its scenario's LazyTrace), else None:
        asking costs nothing, where ``trace`` may compute."""
        return self._computed["trace"] if "trace" in self._computed else _cached(self.scenario)

    def cold(self) -> State:
        """This state without what it computed (the trace, the explanations...): what the undo
        history keeps, so 500 steps do not hold 500 traces."""
        return replace(self)

    @cached_property
    def explanations(self) -> tuple:
        """The lesson's explanation lines for this state (NaN causes, fp16 fill, ...), computed once."""
        if self.large:
            return tuple(explanations_large(self.scenario, self.trace))
        return tuple(explanations(self.scenario, self.trace))

    @cached_property
    def ceiling(self):
        """log₂ of the visible keys per row, (T,): the most bits row t can carry; NaN when it sees none."""
        if self.large:
            with np.errstate(divide="ignore"):
                n = self.trace.visible.astype(np.float64)
                return np.where(n > 0, np.log2(np.maximum(n, 1)), np.nan)
        return ceiling_bits(self.trace.blocked)

    @cached_property
    def rank(self) -> dict:
        """rank S, Q, K, d_k and S's singular values (one SVD per state, not per redraw); for a large
        scenario from QR factors of Q and K (core.ranks), only the d_k nonzero ones."""
        from ..core.lenses import rank_info  # the lenses' and the status line's, not the first screen's

        tr = self.trace
        return tr.rank_info() if self.large else rank_info(tr.S, tr.Q, tr.K)

    @property
    def compared(self) -> State | None:
        """The pinned state when A can be compared with it cell by cell (same shape), else None."""
        p = self.pin
        return p if p is not None and p.trace.A.shape == self.trace.A.shape else None

    def fresh(self) -> State:
        """This state as the start of a new lineage, unpinned: a pin of the scenario before would
        compare nothing the learner changed."""
        return replace(self, lineage=next(_LINEAGES), pin=None)

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
        """c times ``factor``, kept within C_MIN..C_MAX; Refused (said, not silent) when c is already
        at the end of the range that ``factor`` moves towards."""
        old = self.scenario.c
        c = min(C_MAX, max(C_MIN, old * factor))
        if c == old and factor != 1:
            end = "largest" if factor > 1 else "smallest"
            raise Refused(f"c is at its {end} value, {old:g}: the knob goes from {C_MIN:g} to {C_MAX:g}")
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
        hides = MASK_KINDS[s.mask].hides
        if not hides:
            ok, why = causal_allowed(s)
            if not ok:
                raise Refused(f"causal mask not offered: {why}")
        return self.with_scenario(mask="none" if hides else "causal")

    # -- what A shows: as is, value-weighted, info-weighted (core/heads/weighting.py) --
    @property
    def has_w_o(self) -> bool:
        """The source holds W_O, so info-weighted A can be formed."""
        return self.head is not None and self.head.source.has("W_O")

    @property
    def weighting_shown(self) -> str:
        """``weighting`` when this scenario can show it, else "A" (info-weighted without a W_O)."""
        return self.weighting if self.weighting != "info" or self.has_w_o else "A"

    @cached_property
    def key_scale(self) -> np.ndarray | None:
        """(T',) each key's factor in the weighted A (in [0, 1]); None when A is shown as is.
        From the trace's V (V = I when the scenario has none: every ‖v_j‖ = 1) and the head's W_O^(h)."""
        from ..core.heads import weighting as w  # the first W only

        kind = self.weighting_shown
        if kind == "A":
            return None
        V = self.trace.V
        V = V if isinstance(V, np.ndarray) else np.ones((self.scenario.T_k, 1))
        W = None
        if kind == "info":
            assert self.head is not None  # has_w_o: the W_O^(h) of a head of a source
            W = w.source_w_o(self.head.source, self.head.layer, self.head.head)
        return w.scale_for(kind, V, W)

    def cycle_weighting(self) -> State:
        """A → value-weighted → info-weighted (only with a W_O) → A."""
        from ..core.heads.weighting import next_kind

        return replace(self, weighting=next_kind(self.weighting_shown, self.has_w_o))

    # -- heads of a multi-head source (heads_nav) ------------------------------
    def on_head(self, ref: HeadRef) -> State:
        """Head ``ref`` (its Scenario as the model computes it: its own c, mask); the row, cell
        cursor and pin kept, so a head pinned is compared with this one. Refused: one line."""
        try:
            s = scenario_of(ref)
        except ValueError as exc:
            raise Refused(str(exc).splitlines()[0]) from exc
        return replace(self, scenario=s, head=ref, row=min(self.row, s.T - 1), cursor=clamp_cursor(s, self.cursor))

    def step_head(self, delta: int) -> State:
        """The next (1) or previous (-1) head, on into the next layer after its last head."""
        if self.head is None:
            raise Refused(ONE_HEAD)
        return self.on_head(stepped(self.head, d_head=delta))

    def step_layer(self, delta: int) -> State:
        """The same head number in the next (1) or previous (-1) layer, round the layers."""
        if self.head is None:
            raise Refused(ONE_HEAD)
        return self.on_head(stepped(self.head, d_layer=delta))


class Refused(ValueError):
    """A knob that does not apply to this scenario; the message says why (for a notification)."""


def clamp_cursor(s: Scenario, cursor):
    """``cursor`` (name, row, col) moved inside the matrix's shape in ``s``, or None."""
    if not cursor:
        return cursor
    name, r, c = cursor
    shape = matrix_shape(s, name)
    if shape is None:
        return None
    return (name, max(0, min(r, shape[0] - 1)), max(0, min(c, shape[1] - 1)))

"""Undo/redo of the app's States.

A change of the scenario (a cell, a label, a mode, c, a loaded file) is one step;
moving the selected row or the cell cursor is not. Undo brings back the earlier
scenario but keeps where the learner is looking (row and cursor, clamped), so
undoing feels like rewinding the data, not the view.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from .state import State, clamp_cursor

LIMIT = 500


def same_scenario(a, b) -> bool:
    """True when scenarios ``a`` and ``b`` hold the same matrices (shape and values) and settings.

    ``0`` when c is already 1, or a mask picked again, makes a new but identical
    Scenario: that is no change, so no undo step.
    """
    if a is b:
        return True
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if x is y:  # a knob shares the arrays: no pass over T x d values
            continue
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if x is None or y is None or x.shape != y.shape or not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def _same(a: State, b: State) -> bool:
    return same_scenario(a.scenario, b.scenario)


def _view(target: State, current: State) -> State:
    """``target``'s scenario with ``current``'s row, cursor, pin and weighting (the row and cursor kept
    in range): undo takes back a change of the scenario, not what the learner chose to look at. The pin
    only within its lineage: back across an opened scenario, ΔA would compare two different ones."""
    s = target.scenario
    cursor = clamp_cursor(s, current.cursor)
    pin = current.pin if current.pin is not None and current.pin.lineage == target.lineage else None
    return target.with_(row=min(current.row, s.T - 1), cursor=cursor, pin=pin, weighting=current.weighting)


class History:
    """Two stacks of past/future States. ``record`` is called on every set_state."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self.past: list[State] = []
        self.future: list[State] = []
        self._replayed: State | None = None  # the State undo/redo just returned: not a new change

    def record(self, old: State, new: State) -> None:
        """Remember ``old`` if ``new`` changes the scenario; a new change clears redo."""
        if new is self._replayed:
            self._replayed = None
            return
        if old is None or _same(old, new):
            return
        self.past.append(old.cold())
        if len(self.past) > self.limit:
            del self.past[0]
        self.future.clear()

    def undo(self, current: State) -> State | None:
        """The State before ``current``, or None when there is nothing to undo."""
        if not self.past:
            return None
        self.future.append(current.cold())
        self._replayed = _view(self.past.pop(), current)
        return self._replayed

    def redo(self, current: State) -> State | None:
        """The State undone last, or None when there is nothing to redo."""
        if not self.future:
            return None
        self.past.append(current.cold())
        self._replayed = _view(self.future.pop(), current)
        return self._replayed

    def clear(self) -> None:
        self.past.clear()
        self.future.clear()

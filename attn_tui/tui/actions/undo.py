"""Undo and redo of the scenario (tui/history.py keeps the two stacks)."""

from __future__ import annotations

from . import action


@action
def undo(app) -> None:
    st = app.history.undo(app.state)
    if st is None:
        app.notes.note("nothing to undo", "refusal", severity="warning", timeout=3)
        return
    app.set_state(st)
    app.notes.note(f"undone ({len(app.history.past)} more; ctrl+y redoes)", "change", timeout=2)


@action
def redo(app) -> None:
    st = app.history.redo(app.state)
    if st is None:
        app.notes.note("nothing to redo", "refusal", severity="warning", timeout=3)
        return
    app.set_state(st)
    app.notes.note(f"redone ({len(app.history.future)} more)", "change", timeout=2)

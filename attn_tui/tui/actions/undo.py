"""Undo and redo of the scenario (tui/history.py keeps the two stacks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import PIN_DROPPED

if TYPE_CHECKING:
    from attn_tui.tui.app_protocol import ExplorerApp
    from attn_tui.tui.state import State


def _replay(app: ExplorerApp, st: State | None, nothing: str, done: str) -> None:
    """Make ``st`` (what the history gave back) current and say so, or say there was ``nothing``."""
    if st is None:
        app.notes.note(nothing, "refusal", severity="warning", timeout=3)
        return
    dropped = app.state.pin is not None and st.pin is None  # back across another scenario (history._view)
    why = app.set_state(st)
    if not why and dropped:
        done = f"{done}; {PIN_DROPPED}"
    app.notes.note(why or done, "refusal" if why else "change", timeout=5 if why else 2)


def undo(app: ExplorerApp) -> None:
    st = app.history.undo(app.state)
    _replay(app, st, "nothing to undo", f"undone ({len(app.history.past)} more; ctrl+y redoes)")


def redo(app: ExplorerApp) -> None:
    st = app.history.redo(app.state)
    _replay(app, st, "nothing to redo", f"redone ({len(app.history.future)} more)")


def restore_kept(app: ExplorerApp) -> None:
    """ctrl+r: the kept session that the launch offered in one line (tui/session.py: start), restored
    over what the explicit --scenario opened; said when there is none left to restore."""
    session = getattr(app, "session", None)
    if session is None or session.offer is None:
        app.notes.note("no kept session to restore here (none was kept, or it is restored)", "refusal", timeout=4)
        return
    session.restore(app, session.offer)

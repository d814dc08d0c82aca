"""The explorer's editing, mode and file actions: keys.py's ``do('name')`` runs ``ACTIONS[name](app)``.

Each action is a short function of the app: it opens a dialog (screens/editor, modes, files)
whose callback runs a pure function of attn_tui.core through :func:`attempt`, which commits
the new scenario through ``app.set_state`` or returns the one-line refusal the dialog shows.
What the app keeps for them (history, notes, the save path, the last random form) is declared
in AttentionApp.__init__.
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.edit import EditError
from ..history import clamp_cursor

ACTIONS: dict[str, Callable] = {}


def action(fn: Callable) -> Callable:
    """Register ``fn`` as the action ``do('<its name>')``."""
    ACTIONS[fn.__name__] = fn
    return fn


PIN_DROPPED = "the pin was of the previous scenario: dropped (P pins this one)"


def commit(app, scenario, note: str | None = None, fresh: bool = False) -> None:
    """Make ``scenario`` current, keeping the row and cell cursor in range. ``fresh``: another
    scenario (opened, random, learned), not an edit of this one: a pin of the one before is dropped
    and the note says so (ΔA against another scenario's A compares nothing the learner changed)."""
    st = app.state
    row = min(st.row, scenario.T - 1)
    dropped = fresh and st.pin is not None
    new = st.with_(scenario=scenario, row=row, cursor=clamp_cursor(scenario, st.cursor))
    app.set_state(new.with_(pin=None) if dropped else new)
    app.notes.drop("refusal")  # an earlier refusal is stale once a change went through
    if dropped:
        note = f"{note}; {PIN_DROPPED}" if note else PIN_DROPPED
    if note:
        app.notes.note(note, "change", timeout=5)


def attempt(app, fn: Callable, *args, note: str | None = None) -> str | None:
    """Run a pure edit ``fn(scenario, *args)``; None when committed, else the reason (one line).
    ``fn`` may return (scenario, note): its note is shown unless ``note`` is given."""
    try:
        out = fn(app.state.scenario, *args)
    except (EditError, ValueError) as exc:
        return str(exc).splitlines()[0]
    new, extra = out if isinstance(out, tuple) else (out, None)
    commit(app, new, note or extra)
    return None


def refuse(app, reason: str | None) -> None:
    """Say ``reason`` as a short warning (nothing when None)."""
    if reason:
        app.notes.note(reason, "refusal", severity="warning", timeout=5)


from . import edit, files, go, modes, undo  # noqa: E402,F401  (each registers its actions)

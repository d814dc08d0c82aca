"""The explorer's actions: a key's ``do('module.function', *args)`` runs ``function(app, *args)``
of the module here of that name, imported on its first use (AttentionApp.action_do states the rule).

Each action is a short function of the app: a knob applies one of State's pure functions
(knobs.py); an edit opens a dialog (screens/editor, pickers, files) whose callback runs a pure
function of attn_tui.core through :func:`attempt`, which commits the new scenario through
``app.set_state`` or returns the one-line refusal the dialog shows. What the app keeps for them
(history, notes, the save path, the last random form, the box kernel's saved W_Q, W_K) is
declared in AttentionApp.__init__.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...core.edit import EditError
from ..state import clamp_cursor

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.app_protocol import ExplorerApp

KEEP = object()  # commit's head: the scenario is an edit of the current one (of the same head)
PIN_DROPPED = "the pin was of the previous scenario: dropped (P pins this one)"


def commit(app: ExplorerApp, scenario: Scenario, note: str | None = None, head=KEEP, fresh: bool = False) -> str | None:
    """Make ``scenario`` current, keeping the row and cell cursor in range; None when done, else
    the one line of the admission that refused it (app.set_state), the state unchanged. ``head``:
    a new scenario's head of a multi-head source (heads_nav.HeadRef), None for a single-head one;
    an edit keeps the current one. ``fresh``: another scenario (opened, random, learned), not an
    edit of this one nor another head of the same source: a pin of the one before is dropped and
    the note says so (ΔA against another scenario's A compares nothing the learner changed)."""
    st = app.state
    row = min(st.row, scenario.T - 1)
    head = st.head if head is KEEP else head
    dropped = fresh and st.pin is not None
    new = st.with_(scenario=scenario, row=row, cursor=clamp_cursor(scenario, st.cursor), head=head)
    why = app.set_state(new.fresh() if fresh else new)
    if why:
        return why
    app.notes.drop("refusal")  # an earlier refusal is stale once a change went through
    if dropped:
        note = f"{note}; {PIN_DROPPED}" if note else PIN_DROPPED
    if note:
        app.notes.note(note, "change", timeout=5)
    return None


def attempt(app: ExplorerApp, fn: Callable, *args: Any, note: str | None = None) -> str | None:
    """Run a pure edit ``fn(scenario, *args)``; None when committed, else the reason (one line).
    ``fn`` may return (scenario, note): its note is shown unless ``note`` is given."""
    try:
        out = fn(app.state.scenario, *args)
    except (EditError, ValueError) as exc:
        return str(exc).splitlines()[0]
    new, extra = out if isinstance(out, tuple) else (out, None)
    return commit(app, new, note or extra)


def refuse(app: ExplorerApp, reason: str | None) -> None:
    """Say ``reason`` as a short warning (nothing when None)."""
    if reason:
        app.notes.note(reason, "refusal", severity="warning", timeout=5)

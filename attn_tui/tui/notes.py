"""Notes: every notice the explorer shows, one of each kind at a time, and the lesson's explanation.

Every notice goes through the app's one Notes (``app.notes``): a one-off notice with :meth:`Notes.say`,
a note that replaces the last one of its kind with :meth:`Notes.note` (tests/tui/test_notes_door.py
fails on a ``.notify(`` anywhere else in the package). Routine notes are short-lived and replace the
earlier note of the same kind ("change", "refusal", "explain"), so an old note never contradicts the
screen: a new scenario drops the last change's note and the last refusal, and the lesson's explanation
("What happened") is replaced, or removed, whenever the lines that apply change.
"""

from __future__ import annotations

from textual.app import App
from textual.notifications import Notification, SeverityLevel

from .framework import post_notification, shown_notifications, withdraw_notification
from .history import same_scenario
from .state import State


class Notes:
    def __init__(self, app: App) -> None:
        self._app = app
        self._last: dict[str, Notification] = {}  # kind -> the note of that kind shown last
        self._explained: tuple | None = None  # the explanation lines already shown

    def say(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        """A one-off notice (none of a kind to replace), through the app's notify: never markup, the
        title leading the line; safe from a thread worker (it posts a message). timeout None: Textual's."""
        self._app.notify(message, title=title, severity=severity, timeout=timeout)

    def note(
        self, message: str, kind: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float = 4
    ) -> None:
        """Notify ``message`` (never markup), first removing the last note of ``kind``."""
        self.drop(kind)
        self._last[kind] = post_notification(self._app, message, title, severity, timeout)

    def drop(self, kind: str) -> None:
        """Remove the last note of ``kind`` if it is still on screen."""
        n = self._last.pop(kind, None)
        if n is not None:
            withdraw_notification(self._app, n)

    def shown(self) -> list[Notification]:
        """The notifications on screen now, oldest first (these notes and the app's other notices)."""
        return shown_notifications(self._app)

    def messages(self) -> list[str]:
        """Every notification on screen now (these notes and the app's other notices)."""
        return [str(n.message) for n in shown_notifications(self._app)]

    def titles(self) -> list[str]:
        """The titles of the notes on screen: what leads a message up to ": " (post_notification)."""
        return [str(n.message).split(": ", 1)[0] for n in shown_notifications(self._app) if ": " in str(n.message)]

    def state_changed(self, old: State | None, new: State) -> None:
        """A new scenario: the last change's note and the last refusal are stale ("c is at its largest
        value" stayed after `0` reset c: a refusal said of the old scenario); the explanation is redone."""
        if old is None or same_scenario(old.scenario, new.scenario):
            return
        if self._explained is None:  # what the explanation line showed at launch
            self._explained = old.explanations
        self.drop("change")
        self.drop("refusal")
        lines = new.explanations
        if lines == self._explained:
            return
        self._explained = lines
        if lines:
            self.note("\n".join(lines), "explain", title="What happened", timeout=8)
        else:
            self.drop("explain")

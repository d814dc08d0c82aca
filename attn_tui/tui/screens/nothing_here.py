"""NothingHere: what `enter` says on a pane with nothing to type into (a computed grid, the chart,
the entropy table, the inspector).

`enter` then `abc` used to run `a` (add a token), `b` (padding), `c` (cross-attention): the learner
thought they were typing into a field. This modal says in one line what enter edits and how to get
there, and keeps every key until it is closed (enter or escape): a letter typed right after it only
says that it went nowhere.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

CSS_PATH = "dialogs.tcss"
CLOSE = "enter or escape closes this"


class NothingHere(ModalScreen[None]):
    """``line``: what this pane is and what enter edits instead."""

    CSS_PATH = CSS_PATH

    def __init__(self, line: str) -> None:
        super().__init__(id="nothing-here")
        self.line = line

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"{self.line}\n{CLOSE}.", id="nothing-here-text", markup=False)

    def on_key(self, event) -> None:
        event.stop()
        event.prevent_default()
        if event.key in ("enter", "escape"):
            self.dismiss(None)
            return
        typed = event.character if event.character and event.character.isprintable() else event.key
        said = f"{self.line}\n{typed!r} went nowhere: there is no field here to type into; {CLOSE}."
        self.query_one("#nothing-here-text", Static).update(said)

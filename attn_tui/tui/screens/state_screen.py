"""StateScreen: a screen that draws the app's State whenever it changes, and on each resume.

``show(state)`` is the subclass's; it is called with the State when the app's changes (while the
screen is not current it should return at once), after the first layout (the State then, not the
one at mount), and each time the screen becomes current again. The heads, token and model views
share this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from ..app import AttentionApp
    from ..state import State

# The knobs a screen of the model's own weights keeps (its ``knobs_here``: AttentionApp.check_action): c, the
# mask, the scaling, the pin and edits act on the pipeline's head, not on the model it shows.
OFFER_KIND = "offer"  # the notes' kind of the startup's kept-session line (session.py)
MODEL_KNOBS = ("knobs.select_row", "knobs.step_head", "knobs.step_layer", "heads.", "go.", "files.", "undo.")


class StateScreen(Screen):
    """A subclass defines ``show(state)``."""

    # True where notices sit over the screen's own words (tokens.tcss: over the legend): the startup's
    # kept-session offer is dropped on arriving here (ctrl+r still restores it).
    notes_over_content = False

    if TYPE_CHECKING:  # the explorer's app, for the type checker (the app module is above the screens)
        app: AttentionApp

        def show(self, state: State) -> None: ...  # the subclass's

    def on_mount(self) -> None:
        self.watch(self.app, "state", self.show, init=False)
        self.call_after_refresh(lambda: self.show(self.app.state))  # the state then, not now

    def on_screen_resume(self) -> None:
        if self.notes_over_content:
            self.app.notes.drop(OFFER_KIND)
        self.show(self.app.state)

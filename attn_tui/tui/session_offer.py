"""The kept session's offer at launch: OfferScreen, a modal question (enter restores the kept session,
n or escape starts clean, q quits) answered by one of OFFER_KEYS; SessionKeeper (tui/session.py) pushes
it and acts on the answer.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

# The offer's keys (the screen is modal: every other key is answered by saying these again).
OFFER_KEYS = {"enter": "restore", "n": "clean", "escape": "clean", "q": "quit", "ctrl+q": "quit"}
OFFER_WORDS = "enter restores it · n (or escape) starts clean · q quits"


class OfferScreen(ModalScreen[str]):
    """The first screen's question: enter restores the kept session, n or escape starts clean, q quits;
    the kept file stays for the next launch unless restored. Any other key (a shell line typed into the
    wrong window) answers nothing: it only says the keys again."""

    def __init__(self, what: str, folder: Path) -> None:
        super().__init__(id="session-offer")
        self.what, self.folder = what, folder
        self.answered = False  # a second key before the screen is gone must not dismiss it twice

    def compose(self) -> ComposeResult:
        text = Static(self._text(), id="session-offer-text", markup=False)
        text.border_title = "A kept session"
        yield text

    def _text(self, stray: str = "") -> str:
        again = f"\n\n{stray!r} does nothing here: {OFFER_WORDS}." if stray else ""
        return (
            f"{self.what}\n\n{OFFER_WORDS}. Starting clean or quitting keeps it in {self.folder} "
            f"for the next launch.{again}"
        )

    def on_key(self, event) -> None:
        event.stop()
        event.prevent_default()
        if self.answered:
            return
        answer = OFFER_KEYS.get(event.key)
        if answer is None:
            self.query_one("#session-offer-text", Static).update(self._text(event.character or event.key))
            return
        self.answered = True
        self.dismiss(answer)

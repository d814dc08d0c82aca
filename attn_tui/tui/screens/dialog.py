"""AnswerDialog: the shared behaviour of the modal dialogs that take typed input.

A dialog checks what was typed; ``None`` means accepted (the dialog closes with
True), a string is the refusal, shown in red under the input while the dialog
stays open, so the learner can correct it. `escape` closes with False.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static


class AnswerDialog(ModalScreen[bool]):
    MESSAGE_ID = "message"  # the Static under the input that shows the hint or the refusal
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def answer(self, reason: str | None) -> None:
        """Close on ``None``; otherwise show ``reason`` and stay open."""
        if reason is None:
            self.dismiss(True)
            return
        msg = self.query_one(f"#{self.MESSAGE_ID}", Static)
        msg.update(reason)
        msg.add_class("error")

    def action_cancel(self) -> None:
        self.dismiss(False)

    @property
    def message(self) -> str:
        """The text under the input (the hint, or the last refusal)."""
        return str(self.query_one(f"#{self.MESSAGE_ID}", Static).render())

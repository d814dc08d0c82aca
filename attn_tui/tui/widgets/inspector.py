"""Cell inspector: the lines of views.inspector, drawn with the Line API (a repaint, never a relayout)."""

from __future__ import annotations

from rich.text import Text

from .text_lines import TextLines


class Inspector(TextLines, can_focus=True):
    """Shows the lines it is given: how the cell under the cursor was computed."""

    def show(self, lines: list[str]) -> None:
        self.set_text(Text("\n".join(lines)))

"""The explanation line above the status line: what the current modes do to the numbers.

Shown only when there is something to say (NaN rows with the -inf fill, a -1e9 fill
that overflowed in float16, a fully masked row, a causal mask over a second
sequence); the sentences come from attn_tui.core.modes.explanations.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class ExplainLine(Static):
    """Zero or more lines of explanation; hidden when there are none."""

    def show(self, lines) -> None:
        self.display = bool(lines)
        if lines:
            self.update(Text("\n".join("⚠ " + ln for ln in lines), style="bold"))

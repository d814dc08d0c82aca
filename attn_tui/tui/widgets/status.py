"""The status line: draws a views.status.StatusView, fitted to its width.

Essentials first: the selected row, then c and the scaling, the mask, the fill, the
dtype. Each part has a long and a short form; on a narrow screen parts switch to their
short form (lowest priority first) and then the least important are left out, so
`row t4 it` and `c=1.000` stay visible at 80 columns and below. The scenario's title
comes last, cut to the room left (it is whole in the help screen's header).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ...core.labeltext import cut
from .text_lines import TextLines

if TYPE_CHECKING:
    from typing import Any


def status_text(view, width: int | None = None) -> Text:
    """The status line; ``width`` (cells) shortens and drops parts until it fits."""
    parts = view.parts
    badge = " attn-tui "
    short = [False] * len(parts)
    keep = [True] * len(parts)

    def length() -> int:
        body = [p.short if sh else p.long for p, sh, k in zip(parts, short, keep) if k]
        body = [b for b in body if b]
        return len(badge) * show_badge + 1 + len(" · ".join(body)) + 1

    show_badge = True
    if width is not None:
        order = sorted(range(len(parts)), key=lambda i: -parts[i].priority)
        for i in order:  # short forms, least important first
            if length() <= width:
                break
            short[i] = True
        if length() > width:
            show_badge = False
        for i in order:  # then leave parts out
            if length() <= width or parts[i].priority == 0:
                break
            keep[i] = False
    t = Text(no_wrap=True, overflow="ellipsis")
    if show_badge:
        t.append(badge, "bold reverse")
    t.append(" ")
    first = True
    for p, sh, k in zip(parts, short, keep):
        text = p.short if sh else p.long
        if not k or not text:
            continue
        if not first:
            t.append(" · ")
        t.append(text, p.style)
        first = False
    title = view.title
    room = None if width is None else width - t.cell_len - 4
    if title and (room is None or room >= 12):  # the title, cut to what is left (whole in the help screen)
        if room is not None and len(title) > room:
            title = cut(title, room - 1) + "…"  # between grapheme clusters (core.labeltext)
        t.append(" · ")
        t.append(title, "dim")
    t.append(" ")
    return t


class StatusLine(TextLines):
    """One line; call :meth:`show` with the new state (a repaint, never a relayout)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(wrap=False, **kw)
        self._view = None
        self._fitted = -1  # the width the text was fitted to

    def show(self, view) -> None:
        """Draw ``view`` (views.status.StatusView), fitted to the width."""
        self._view = view
        self._fitted = self.size.width
        self.set_text(status_text(view, self.size.width or None))

    def _lines(self, width: int):
        """The lines at ``width``, the text fitted to it first: the first frame is drawn before the
        Resize that gives the line its width arrives, and is drawn fitted, not fitted again after."""
        if self._view is not None and width != self._fitted:
            self._fitted = width
            self._text, self._strips = status_text(self._view, width or None), None
        return super()._lines(width)

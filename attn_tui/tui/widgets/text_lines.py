"""TextLines: a few lines of Rich Text drawn with the Line API.

Static.update relayouts the screen and re-parses markup on every change; a pane that
changes on every keypress (status line, inspector) only needs its own lines redrawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from typing import Any

MORE = Segment("…", Style(bold=True))  # the last visible line, when the text has more lines


class TextLines(Widget):
    """Call :meth:`set_text`; lines wrap to the widget's width (or are cut, ``wrap=False``)."""

    def __init__(self, *, wrap: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.wrap = wrap
        self._text = Text()
        self._strips: list[Strip] | None = None
        self._strips_width = 0

    @property
    def plain(self) -> str:
        """The text shown, without styles."""
        return self._text.plain

    def set_text(self, text: Text) -> None:
        if text.plain == self._text.plain and text.spans == self._text.spans:
            return
        old = self._strips if self._strips_width == max(1, self.size.width) else None
        self._text, self._strips = text, None
        # Not drawn at this width yet (a pane before its first layout has width 0): the lines are
        # made when drawn, not here (wrapped to one cell, an inspector's text was ~1 ms of the launch).
        new = None if old is None else self._lines(self.size.width)
        if old is None or new is None or len(old) != len(new):
            auto = self.styles.height is not None and self.styles.height.is_auto
            self.refresh(layout=auto)
            return
        for y, (a, b) in enumerate(zip(old, new)):  # the same lines: repaint the changed ones only
            if a != b:
                self.refresh(Region(0, y, self.size.width, 1))

    def _lines(self, width: int) -> list[Strip]:
        """The text wrapped (or cut) to ``width`` cells, cached for that width: layout asks
        for the height at a width the widget may not have yet, and must not leave lines
        wrapped for the wrong width behind."""
        width = max(1, width)
        if self._strips is None or self._strips_width != width:
            console = self.app.console
            if self.wrap:
                parts = self._text.wrap(console, width)
            else:
                parts = self._text.split("\n", allow_blank=True)
            self._strips = [Strip(p.render(console), p.cell_len).crop(0, width) for p in parts]
            self._strips_width = width
            self._base = self.rich_style
        return self._strips

    def render_line(self, y: int) -> Strip:
        lines = self._lines(self.size.width)
        base = self._base  # set with the lines: rich_style walks the DOM, too dear per line
        strip = lines[y] if y < len(lines) else Strip.blank(0)
        width, height = self.size
        if y == height - 1 and len(lines) > height and width > 1:  # more text than room: say so
            strip = Strip.join([strip.crop(0, width - 1).extend_cell_length(width - 1), Strip([MORE])])
        return strip.apply_style(base).extend_cell_length(width, base)

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(1, len(self._lines(width)))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips = None  # the theme or CSS changed: ``_base`` (kept with the lines) with it

    def on_resize(self) -> None:
        self._strips = None

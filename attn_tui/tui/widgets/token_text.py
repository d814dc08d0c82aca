"""TokenText: a sequence drawn as wrapped text, each token on the grid's colour of its weight.

The tokens are laid out once per (texts, width) and kept; a new query only recolours, so a move
repaints the lines whose colours changed. Styles are the grids' (``matrix-grid--seq-*`` for a
weight, ``--blocked`` for a masked key, ``--cursor`` for the token outlined: palette.Look), so a
theme restyles them. With ``glyphs`` each token is followed by a bar as tall as its weight
(▁ … █), for terminals that show no colour (NO_COLOR, 16 colours); in colour, a text whose tokens join
(word pieces, no space between) draws every other token in italics, so " c" "at" are two. Scrolls (T up to 16,384): only
the lines on screen are drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from . import palette

if TYPE_CHECKING:
    from typing import Any

BLOCKED, NAN = -2, -1
ITALIC = Style(italic=True)
ROWS = 2  # a line of text is two rows: the tokens, and under each its position (t1 ...) where it fits


def wrap(texts: tuple, joined: bool, width: int, extra: int) -> list[list[int]]:
    """Token indices per line: each token takes its cells (+ ``extra`` for its glyph), a space
    before it unless ``joined``; a token that ends in a newline sign (↵) ends its line."""
    lines: list[list[int]] = [[]]
    used = 0
    for i, text in enumerate(texts):
        w = cell_len(text) + extra + (0 if joined else 1)
        if lines[-1] and used + w > width:
            lines.append([])
            used = 0
        lines[-1].append(i)
        used += w
        if text.endswith("↵"):
            lines.append([])
            used = 0
    return lines


class TokenText(ScrollView, can_focus=True):
    """Draws the tokens it is given (:meth:`show`); keeps the selected token in view."""

    HELP = "The sequence as text: each token shaded by its weight, the query outlined."

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.texts: tuple = ()
        self.joined = False
        self.codes = np.zeros(0, dtype=np.int64)
        self.selected: int | None = None
        self.glyphs = False
        self._lines: list[list[int]] = []
        self._line_of: np.ndarray = np.zeros(0, dtype=np.int64)
        # (id(texts), width, joined, glyphs) the lines were made for
        self._laid: tuple[int, int, bool, bool] | None = None
        self._look = None

    def show(self, texts: tuple, joined: bool, weights: np.ndarray, selected: int | None, glyphs: bool) -> None:
        codes = palette.buckets(weights, "seq")
        codes[np.isnan(np.asarray(weights, dtype=np.float64))] = BLOCKED
        old_codes, old_sel = self.codes, self.selected
        same_text = texts is self.texts and joined == self.joined and glyphs == self.glyphs
        self.texts, self.joined, self.codes, self.selected, self.glyphs = texts, joined, codes, selected, glyphs
        if not same_text or self._laid is None or len(old_codes) != len(codes):
            self._layout()
            self.refresh()
        else:
            changed = set(np.flatnonzero(old_codes != codes).tolist())
            changed |= {j for i in (old_sel, selected) if i is not None for j in (i, i + 1) if j < len(codes)}
            for line in sorted({int(self._line_of[i]) for i in changed}):
                self.refresh(Region(0, ROWS * line - int(self.scroll_offset.y), self.size.width, 1))
        self._reveal()

    def on_resize(self) -> None:
        self._layout()
        self._reveal()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._look = None

    def _room(self) -> int:
        """The width the lines may take: the content's, less the vertical scrollbar's when they overflow
        the height. Decided here, not read from the scrollbar shown now: it appears only after the layout
        that needs it, and no resize follows (tokens under it were cut, issue: learner item 2)."""
        full = max(8, self.size.width or 80)
        extra = 1 if self.glyphs else 0
        if self.styles.overflow_y == "hidden" or not self.size.height:
            return full
        if ROWS * len(wrap(self.texts, self.joined, full, extra)) <= self.size.height:
            return full
        return max(8, full - self.styles.scrollbar_size_vertical)

    def _layout(self) -> None:
        width = self._room()
        key = (id(self.texts), width, self.joined, self.glyphs)
        if key != self._laid:
            self._lines = wrap(self.texts, self.joined, width, 1 if self.glyphs else 0)
            self._line_of = np.zeros(len(self.texts), dtype=np.int64)
            for y, line in enumerate(self._lines):
                self._line_of[line] = y
            self._laid = key
        self.virtual_size = Size(width, ROWS * len(self._lines))

    def _reveal(self) -> None:
        """Scroll so that the selected token's line is on screen (a little context above it)."""
        if self.selected is None or self.selected >= len(self._line_of):
            return
        y, top, h = ROWS * int(self._line_of[self.selected]), int(self.scroll_offset.y), max(1, self.size.height)
        if not top <= y < top + h:
            self.scroll_to(y=max(0, y - h // 3), animate=False)

    def _same_line(self, i: int, j: int) -> bool:
        return int(self._line_of[i]) == int(self._line_of[j])

    def _styles(self):
        if self._look is None:
            look = palette.shared_look(self, lambda n: palette.shared_styles(self)[n].partial_rich_style)
            self._look = (self.rich_style, look)
        return self._look

    def render_line(self, y: int) -> Strip:
        base, look = self._styles()
        sy, under = divmod(int(self.scroll_offset.y) + y, ROWS)
        width = self.scrollable_content_region.width
        if sy >= len(self._lines):
            return Strip.blank(width, base)
        line = self._lines[sy]
        if under:
            return self._ruler(self._positions(line, width), base, width)
        segs: list[Segment] = []
        for i in line:
            segs += self._token(i, look, base)
        if line and line[-1] == self.selected and not self.joined:
            segs.append(Segment("]", look.selected_label))  # the outline's end, after the line's last token
        return Strip(segs).extend_cell_length(width, base).crop(0, width)

    def _positions(self, line: list[int], width: int) -> str:
        """The row under a line of tokens: each token's position (from 1) under its first cell, when it
        fits before the next token's (a run of one-letter tokens shows every other one). The last token
        is always numbered: the number before it gives way (11 tokens showed 1 … 10, t11 unnumbered)."""
        cells = [" "] * width
        x, free, placed = 0, 0, None
        last = len(self.texts) - 1
        for i in line:
            x += 0 if self.joined else 1
            num = str(i + 1)
            if i == last and x < free and placed is not None:
                cells[placed[0] : placed[1]] = " " * (placed[1] - placed[0])  # the one before gives way
                free = placed[0]
            if x >= free and x + len(num) <= width:
                cells[x : x + len(num)] = num
                free, placed = x + len(num) + 1, (x, x + len(num))
            x += cell_len(self.texts[i].replace("\n", "↵")) + (1 if self.glyphs else 0)
        return "".join(cells)

    @staticmethod
    def _ruler(text: str, base: Style, width: int) -> Strip:
        """The positions row as segments of spaces and of digits (one segment of both, an SVG drops its
        leading spaces)."""
        dim = base + Style(dim=True)
        segs, run, digits = [], "", False
        for ch in text:
            if run and ch.isdigit() != digits:
                segs.append(Segment(run, dim if digits else base))
                run = ""
            run, digits = run + ch, ch.isdigit()
        if run:
            segs.append(Segment(run, dim if digits else base))
        return Strip(segs, width)

    def _token(self, i: int, look: palette.Look, base: Style) -> list[Segment]:
        """A token's cells: the space before it (the outline's "[" or "]" when the query is this token or
        the one before), its text on its weight's colour, its glyph."""
        code = int(self.codes[i])
        style = look.blocked if code == BLOCKED else look.seq[code] if code >= 0 else look.nan
        sel = i == self.selected
        segs = []
        if not self.joined:
            after = self.selected is not None and i == self.selected + 1 and self._same_line(i, self.selected)
            sep = "[" if sel else "]" if after else " "
            segs.append(Segment(sep, look.selected_label if sep != " " else base))
        text = self.texts[i].replace("\n", "↵")
        if self.joined and not self.glyphs and i % 2:
            style += ITALIC  # joined pieces of one shade ( c|at) read as one word: every other one in italics
        segs.append(Segment(text, look.cursor + Style(underline=True) if sel else base + style))
        if self.glyphs:
            g = "×" if code == BLOCKED else palette.ramp_glyph("seq", code) if code >= 0 else "?"
            segs.append(Segment(g, base))
        return segs

"""MatrixGrid: one widget per matrix, drawn with the Line API.

Every cell prints its number; the background encodes the value (viridis for weights,
a diverging palette for signed values); blocked (masked) cells are struck through in
grey; the selected query row is bold and underlined; a cell cursor moves with the
arrows while the grid has focus. One Strip is cached per row and rebuilt only when
the data, the selection or the cursor on that row changes. The header row and the
label column stay put while the grid scrolls (T up to 256 and beyond). Every colour is
a component class (``matrix-grid--masked``, ``--seq-0`` ...; app.tcss), read once per
CSS or theme change, so a theme restyles the grids.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from rich.segment import Segment
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...core.diagnose import NO_CEILING
from .. import keys
from ..messages import CellCursorMoved, EditRequested
from . import palette as P
from .page_scroll import reveal_line
from .palette import LABEL_MAX, fit_label, headers


class MatrixGrid(ScrollView, can_focus=True):
    """A (rows × cols) matrix with row and column labels.

    ``matrix`` names the matrix (e.g. "A"); ``editable`` makes `enter` post
    EditRequested(matrix, row, col). Data comes in through :meth:`show`.
    """

    BINDINGS = keys.bindings("grid")
    COMPONENT_CLASSES = P.COMPONENTS

    def __init__(
        self, matrix: str, *, editable: bool = False, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.matrix = matrix
        self.editable = editable
        self.values = np.zeros((0, 0))
        self.row_labels: tuple = ()
        self.col_labels: tuple = ()
        self.kind = "div"
        self.blocked: np.ndarray | None = None
        self.selected: int | None = None
        self.cursor = (0, 0)
        self._w = 5  # characters per number
        self._lw = 1  # label column width
        self._buckets = np.zeros((0, 0), dtype=np.int64)
        self._text: dict[int, list[str]] = {}
        self._cache: dict[int, tuple] = {}  # row -> ((c0, c1), Strip of those columns)
        self._header: Strip | None = None
        self._look: P.Look | None = None
        self._stale = True  # read the component styles again at the next draw

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._stale = True  # the CSS or the theme changed

    def _styles(self) -> P.Look:
        """The component classes' styles; the cached rows are redrawn only if they changed."""
        if self._stale:
            look, self._stale = P.Look.read(partial(self.get_component_rich_style, partial=True)), False
            if look != self._look:
                self._look, self._header = look, None
                self._cache.clear()
        return self._look

    # -- data in -------------------------------------------------------------
    def show(
        self, values, row_labels, col_labels, *, kind: str = "div", blocked=None, selected: int | None = None
    ) -> None:
        """Display ``values`` (rows × cols). kind: "seq" | "div" | "plain" | "mask".

        blocked: optional bool array of the same shape (True = masked cell).
        selected: the highlighted query row, or None. Unchanged data is not redrawn.
        """
        values = np.asarray(values)
        same = (
            values.shape == self.values.shape
            and kind == self.kind
            and tuple(row_labels) == self.row_labels
            and tuple(col_labels) == self.col_labels
            and np.array_equal(values, self.values, equal_nan=True)
            and (blocked is None) == (self.blocked is None)
            and (blocked is None or np.array_equal(blocked, self.blocked))
        )
        if same:
            self.select(selected)
            return
        self.values = values
        self.row_labels, self.col_labels = tuple(row_labels), tuple(col_labels)
        self.kind, self.blocked, self.selected = kind, blocked, selected
        self._w = P.cell_width(values)
        self._lw = min(LABEL_MAX, max((len(s) for s in self.row_labels), default=0)) + 1
        self._buckets = P.buckets(values, "seq" if kind == "seq" else "div" if kind == "div" else "plain")
        self._text.clear()
        self._cache.clear()
        self._header = None
        r, c = self.cursor
        self.cursor = (min(r, max(0, values.shape[0] - 1)), min(c, max(0, values.shape[1] - 1)))
        self.virtual_size = Size(self._lw + values.shape[1] * (self._w + 1), values.shape[0] + 1)
        self.refresh()

    def select(self, row: int | None) -> None:
        """Highlight query row ``row``; only the two affected rows are redrawn."""
        if row == self.selected:
            return
        old, self.selected = self.selected, row
        for r in (old, row):
            self._invalidate(r)

    def _invalidate(self, r: int | None) -> None:
        if r is None:
            return
        self._cache.pop(r, None)
        y = r - int(self.scroll_offset.y) + 1
        if 1 <= y < self.size.height:
            self.refresh_line(y)

    # -- drawing ---------------------------------------------------------------
    def _row_text(self, r: int, c0: int = 0, c1: int | None = None) -> list:
        """Formatted cells of row r, right-aligned; only columns c0..c1-1 are formatted now."""
        text = self._text.get(r)
        if text is None:
            text = self._text[r] = [None] * self.values.shape[1]
        w, row = self._w, self.values[r]
        blocked = self.blocked[r] if self.blocked is not None and self.kind == "seq" else None
        for c in range(c0, len(text) if c1 is None else c1):
            if text[c] is None:
                x = float(row[c])
                # A masked weight is exactly 0: print "0", unlike a rounded "0.000" of an open cell.
                exact = blocked is not None and blocked[c] and x == 0
                text[c] = ("0" if exact else P.fmt(x, w)).rjust(w)
                if self.kind == "plain" and self.blocked is not None and self.blocked[r, c]:
                    text[c] = NO_CEILING.rjust(w)  # a cell with no value (a row that sees no key)
        return text

    def cell_text(self, row: int, col: int) -> str:
        """What cell (row, col) prints, e.g. "0.870", "NaN", "-1e9"."""
        return self._row_text(row, col, col + 1)[col].strip()

    def _style(self, look: P.Look, r: int, c: int):
        if self.blocked is not None and self.blocked[r, c]:
            return look.masked if self.kind == "mask" else look.blocked
        b = self._buckets[r, c]
        if b < 0:
            return look.nan
        if self.kind == "seq":
            return look.seq[b]
        if self.kind == "div":
            return look.div[b]
        if self.kind == "mask":
            return look.open
        return look.plain

    def _data_strip(self, r: int, c0: int, c1: int) -> Strip:
        """Columns c0..c1-1 of row r (the visible ones), cached until r's look changes."""
        cached = self._cache.get(r)
        if cached is not None and cached[0] == (c0, c1):
            return cached[1]
        look = self._styles()
        gap = Segment(" ", look.gap)
        sel = r == self.selected
        cur = self.cursor[1] if (self.has_focus and self.cursor[0] == r) else -1
        text = self._row_text(r, c0, c1)
        segs = []
        for c in range(c0, c1):
            style = self._style(look, r, c)
            if sel:
                style = style + look.selected_row
            if c == cur:
                style = look.cursor
            segs += [gap, Segment(text[c], style)]
        strip = Strip(segs, (c1 - c0) * (self._w + 1))
        self._cache[r] = ((c0, c1), strip)
        return strip

    def _header_strip(self) -> Strip:
        if self._header is None:
            w = self._w
            text = "".join(" " + lab.rjust(w) for lab in headers(self.col_labels, w))
            self._header = Strip([Segment(text, self._styles().header)], len(text))
        return self._header

    def render_line(self, y: int) -> Strip:
        sx, sy = int(self.scroll_offset.x), int(self.scroll_offset.y)
        width, lw, cw = self.size.width, self._lw, self._w + 1
        vis = max(0, width - lw)
        c0, c1 = sx // cw, min(self.values.shape[1], (sx + vis) // cw + 1)
        look = self._styles()
        if y == 0:
            data, x0 = self._header_strip(), sx
            body = data.crop(x0, x0 + vis)
            head = P.legend_segments(self.kind, self.values, lw, look)
            return Strip([*head, *body], lw + body.cell_length).extend_cell_length(width, look.gap).crop(0, width)
        else:
            r = sy + y - 1
            if r >= self.values.shape[0]:
                return Strip.blank(width, look.gap)
            label = fit_label(self.row_labels[r], lw - 1)
            label_style = look.selected_label if r == self.selected else look.label
            data, x0 = self._data_strip(r, c0, max(c0, c1)), sx - c0 * cw
        head = Segment(label.ljust(lw)[:lw], label_style)
        body = data.crop(x0, x0 + vis)
        return Strip([head, *body], lw + body.cell_length).extend_cell_length(width, look.gap).crop(0, width)

    # -- layout (screens/pipeline_layout.py) ---------------------------------------
    def _vbar(self, scrollbar: int, max_height: int) -> int:
        """Width of the vertical scrollbar when ``max_height`` (title, header, h-bar) cuts rows."""
        return scrollbar if self.values.shape[0] > max_height - 3 else 0

    def natural_width(self, scrollbar: int = 1, max_height: int = 14) -> int:
        """Columns that show every cell: labels, cells and, for a tall matrix, a scrollbar."""
        return self.virtual_size.width + self._vbar(scrollbar, max_height)

    def least_width(self, cells: int = 3, scrollbar: int = 1, max_height: int = 14) -> int:
        """The narrowest useful width: the labels and ``cells`` columns (the rest scrolls)."""
        n = min(cells, self.values.shape[1]) if self.values.ndim == 2 else 0
        return self._lw + n * (self._w + 1) + self._vbar(scrollbar, max_height)

    def snap_width(self, width: int, scrollbar: int = 1, max_height: int = 14) -> int:
        """``width`` cut down to whole cells when it is narrower than the natural width."""
        extra = self._vbar(scrollbar, max_height)
        if width >= self.virtual_size.width + extra:
            return width
        cells = max(1, (width - self._lw - extra) // (self._w + 1))
        return min(width, self._lw + cells * (self._w + 1) + extra)

    # -- cursor ----------------------------------------------------------------
    def move_cursor(self, row: int, col: int, *, post: bool = True) -> None:
        """Put the cell cursor on (row, col), clamped; scroll it into view."""
        nr, nc = self.values.shape
        if nr == 0 or nc == 0:
            return
        row, col = max(0, min(nr - 1, row)), max(0, min(nc - 1, col))
        old, self.cursor = self.cursor, (row, col)
        self._invalidate(old[0])
        self._invalidate(row)
        self._scroll_to_cell(row, col)
        if self.has_focus:  # a pane taller than the screen keeps the cursor's row in view
            reveal_line(self, self.content_region.y + 1 + row - int(self.scroll_offset.y))
        if post:
            self.post_message(CellCursorMoved(self.matrix, row, col))

    def _scroll_to_cell(self, row: int, col: int) -> None:
        """Scroll so (row, col) is visible below the header and right of the labels."""
        sx, sy = int(self.scroll_offset.x), int(self.scroll_offset.y)
        view = self.scrollable_content_region  # without the scrollbars
        h, vis, w = view.height - 1, view.width - self._lw, self._w + 1
        if h <= 0 or vis <= 0:
            return
        sy = row if row < sy else row - h + 1 if row >= sy + h else sy
        x0 = col * w
        sx = x0 if x0 < sx else x0 + w - vis if x0 + w > sx + vis else sx
        self.scroll_to(sx, sy, animate=False, immediate=True)

    def action_cursor(self, drow: int, dcol: int) -> None:
        r, c = self.cursor
        self.move_cursor(r + drow, c + dcol)

    def cell_region(self, row: int, col: int) -> Region:
        """Screen region of cell (row, col) as drawn now (where an inline editor goes)."""
        sx, sy = int(self.scroll_offset.x), int(self.scroll_offset.y)
        box = self.content_region
        x = box.x + self._lw + col * (self._w + 1) + 1 - sx
        return Region(x, box.y + 1 + row - sy, self._w, 1)

    def check_action(self, action: str, parameters) -> bool | None:
        """Every action runs; `enter` on S, M, A, O says what to edit instead (app side)."""
        return True

    def action_edit(self) -> None:
        if self.values.size:  # also on S, M, A, O: the app says what to edit instead
            self.post_message(EditRequested(self.matrix, *self.cursor))

    def on_focus(self) -> None:
        self._invalidate(self.cursor[0])
        self.post_message(CellCursorMoved(self.matrix, *self.cursor))

    def on_blur(self) -> None:
        self._invalidate(self.cursor[0])

    def on_click(self, event: events.Click) -> None:
        sx, sy = self.scroll_offset
        if event.y < 1:
            return
        # A click on a row label keeps the cursor's column (and so selects that query row).
        col = self.cursor[1] if event.x < self._lw else (sx + event.x - self._lw) // (self._w + 1)
        self.move_cursor(sy + event.y - 1, col)

    def on_resize(self) -> None:
        self._cache.clear()
        self._scroll_to_cell(*self.cursor)  # a pane made smaller keeps the selected row in view

"""A MatrixGrid's geometry: the widths it can take (for the pipeline's fit, screens/pipeline_layout.py),
where a cell is on screen, scrolling a cell into view, a page of rows, a click to a cell.

A mixin of methods only: it reads the grid's shape, label width (``_lw``), cell width (``_w``),
cursor and scroll offset, and keeps nothing of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.geometry import Region

if TYPE_CHECKING:  # the checker sees the grid the mixin is mixed into (MatrixGrid, a ScrollView)
    from typing import Any

    from textual.scroll_view import ScrollView as _Host
else:
    _Host = object


class GridSizing(_Host):
    if TYPE_CHECKING:  # what it reads of MatrixGrid (and of GridCursor)
        values: Any  # an ndarray, or any object with .shape and 2-D slicing
        cursor: tuple[int, int]
        _lw: int  # label column width
        _w: int  # characters per number

        def move_cursor(self, row: int, col: int, *, post: bool = True) -> None: ...

    def _view(self) -> tuple[int, int]:
        """(width, height) of the lines drawn, without the scrollbars (a line of cells repainted
        must not repaint a scrollbar beside or under it)."""
        view = self.scrollable_content_region
        return view.width, view.height

    def _vbar(self, scrollbar: int, max_height: int) -> int:
        """Width of the vertical scrollbar when ``max_height`` (title, header, h-bar) cuts rows."""
        return scrollbar if self.values.shape[0] > max_height - 3 else 0

    def natural_width(self, scrollbar: int = 1, max_height: int = 14) -> int:
        """Columns that show every cell: labels, cells and, for a tall matrix, a scrollbar."""
        return self.virtual_size.width + self._vbar(scrollbar, max_height)

    def least_width(self, cells: int = 3, scrollbar: int = 1, max_height: int = 14) -> int:
        """The narrowest useful width: the labels and ``cells`` columns (the rest scrolls)."""
        n = min(cells, self.values.shape[1]) if len(self.values.shape) == 2 else 0
        return self._lw + n * (self._w + 1) + self._vbar(scrollbar, max_height)

    def snap_width(self, width: int, scrollbar: int = 1, max_height: int = 14) -> int:
        """``width`` cut down to whole cells when it is narrower than the natural width."""
        extra = self._vbar(scrollbar, max_height)
        if width >= self.virtual_size.width + extra:
            return width
        cells = max(1, (width - self._lw - extra) // (self._w + 1))
        return min(width, self._lw + cells * (self._w + 1) + extra)

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

    def action_cursor_page(self, pages: int) -> None:
        """Move the cell cursor ``pages`` screens of rows down (up when negative), as a spreadsheet's
        PageDown does: the rows shown below the header, at least one."""
        r, c = self.cursor
        self.move_cursor(r + pages * max(1, self._view()[1] - 1), c)

    def cell_region(self, row: int, col: int) -> Region:
        """Screen region of cell (row, col) as drawn now (where an inline editor goes)."""
        sx, sy = int(self.scroll_offset.x), int(self.scroll_offset.y)
        box = self.content_region
        x = box.x + self._lw + col * (self._w + 1) + 1 - sx
        return Region(x, box.y + 1 + row - sy, self._w, 1)

    def on_click(self, event: events.Click) -> None:
        sx, sy = self.scroll_offset
        y = event.screen_y - self.content_region.y  # the header row is 0 (event.y counts the border too)
        if y < 1:
            return
        # A click on a row label keeps the cursor's column (and so selects that query row).
        col = self.cursor[1] if event.x < self._lw else (sx + event.x - self._lw) // (self._w + 1)
        self.move_cursor(sy + y - 1, col)

"""A MatrixGrid's cell cursor: the arrows move it (clamped, scrolled into view), `enter` asks to
edit the cell under it, and the grid says where it is (CellCursorMoved) when it moves or takes the focus.

A mixin of methods only: it reads and sets the grid's ``cursor``, reads its values' shape and
posts the grid's own messages (MatrixGrid.CellCursorMoved, MatrixGrid.EditRequested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .page_scroll import reveal_line

if TYPE_CHECKING:  # the checker sees the grid the mixin is mixed into (MatrixGrid, a ScrollView)
    from typing import Any

    from textual.scroll_view import ScrollView as _Host
else:
    _Host = object


class GridCursor(_Host):
    if TYPE_CHECKING:  # what it reads of MatrixGrid
        values: Any  # an ndarray, or any object with .shape and 2-D slicing
        cursor: tuple[int, int]
        CellCursorMoved: Any  # MatrixGrid's messages
        EditRequested: Any

        def _invalidate(self, r: int | None) -> None: ...
        def _scroll_to_cell(self, row: int, col: int) -> None: ...

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
            reveal_line(self, self.region.y + self.row_line(row))
        if post:
            self.post_message(self.CellCursorMoved(self, row, col))

    def row_line(self, row: int) -> int:
        """Lines from the pane's top to its ``row`` as now scrolled: under its border and header."""
        return self.content_region.y - self.region.y + 1 + row - int(self.scroll_offset.y)

    def action_cursor(self, drow: int, dcol: int) -> None:
        r, c = self.cursor
        self.move_cursor(r + drow, c + dcol)

    def action_edit(self) -> None:
        if 0 not in self.values.shape:  # also on S, M, A, O: the app says what to edit instead
            self.post_message(self.EditRequested(self, *self.cursor))

    def on_focus(self) -> None:
        self._invalidate(self.cursor[0])
        self.post_message(self.CellCursorMoved(self, *self.cursor))

    def on_blur(self) -> None:
        self._invalidate(self.cursor[0])

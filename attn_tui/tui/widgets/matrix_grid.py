"""MatrixGrid: one widget per matrix, drawn with the Line API.

Every cell prints its number; the background encodes the value (viridis for weights,
a diverging palette for signed values); blocked (masked) cells are struck through in
grey; the selected query row is bold and underlined; a cell cursor moves with the
arrows while the grid has focus. The header row and the label column stay put while
the grid scrolls. Every colour is a component class (``matrix-grid--masked``,
``--seq-0`` ...; app.tcss), read once per CSS or theme change, so a theme restyles the grids.

The protocol of :meth:`MatrixGrid.show` (views/grids.py GridView feeds it):

- ``values`` and ``blocked`` are an ndarray or any object with ``.shape`` whose 2-D
  slicing ``values[r, c0:c1]`` returns an ndarray. The grid reads only the rows and
  columns it draws (texts and colour codes per visible row, cached; grid_cells.py),
  never the whole matrix.
- ``lo``, ``hi``: the finite min and max over the WHOLE matrix (NaN when none is finite).
  The cell width (palette.width_for) and the diverging colour scale and legend
  (palette.span) come from them, never from scanning ``values`` (``by_sign``: the width from their sign, S's).
- ``version``: any hashable; equal versions mean the same values and blocked, and the grid
  then reads nothing. With no version (None) the grid compares the two ndarrays.

A keypress repaints nothing when the values are unchanged (a moved selection: its two rows);
when they changed but not the shape, labels or cell width, only the cells whose text or
colour changed (and the legend), no relayout; otherwise the whole grid.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from rich.segment import Segment
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...core.finite import finite_range
from . import palette
from .grid_cells import changed_runs, row_cells, row_segments
from .grid_cursor import GridCursor
from .grid_sizing import GridSizing
from .palette import LABEL_MAX, fit_label, headers


class MatrixGrid(palette.SharedStyles, GridCursor, GridSizing, ScrollView, can_focus=True):
    """A (rows × cols) matrix with row and column labels. ``matrix`` names the matrix (e.g. "A");
    ``editable`` makes `enter` post EditRequested(grid, row, col). Data comes in through :meth:`show`;
    ``extra_cell`` (set before it) widens every cell by that many columns (a wide screen's spare width).
    Its keys (the actions cursor, cursor_page, edit) are bound by screens/keyed_grid.py."""

    class CellMessage(Message):
        """Cell (row, col) of ``grid`` (``grid.matrix``); ``@on(MatrixGrid.EditRequested, "#grid-A")`` works."""

        def __init__(self, grid: MatrixGrid, row: int, col: int) -> None:
            super().__init__()
            self.grid, self.row, self.col = grid, row, col

        @property
        def control(self) -> MatrixGrid:
            return self.grid

    class CellCursorMoved(CellMessage):
        """The cell cursor moved to (row, col), or the grid took the focus with it there."""

    class EditRequested(CellMessage):
        """`enter` on cell (row, col); the app edits it, or says what to edit instead (S, M, A, O)."""

    extra_cell = 0
    COMPONENT_CLASSES: ClassVar[set[str]] = set()  # palette.COMPONENTS, applied once per app and theme, not per grid

    def __init__(
        self, matrix: str, *, editable: bool = False, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.matrix = matrix
        self.editable = editable
        self.values = np.zeros((0, 0))  # or any object with .shape and 2-D slicing (module docstring)
        self.row_labels: tuple = ()
        self.col_labels: tuple = ()
        self.kind = "div"
        self.blocked: np.ndarray | None = None
        self.selected: int | None = None
        self.cursor = (0, 0)
        self._w = 5  # characters per number
        self._lw = 1  # label column width
        self.version = None  # equal versions: the same values and blocked
        self._scale = 0.0  # max |finite value| of the whole matrix: the colour scale
        self._cells: dict[int, tuple] = {}  # row -> ((c0, c1), (texts, codes) of those columns)
        self._cache: dict[int, tuple] = {}  # row -> ((c0, c1), Strip of those columns)
        self._header: Strip | None = None
        self._look: palette.Look | None = None
        self._stale = True  # read the component styles again at the next draw

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._stale, old = True, self._look  # the CSS or the theme changed: repaint if the colours did
        if old is not None and self.is_attached and self._styles() != old:
            self.refresh()

    def _styles(self) -> palette.Look:
        """The component classes' styles (one Look per app and theme); the cached rows are
        redrawn only if they changed."""
        if self._stale:
            look, self._stale = palette.shared_look(self, self.partial_style), False
            if look != self._look:
                self._look, self._header = look, None
                self._cache.clear()
        assert self._look is not None  # read at the first call (_stale starts True)
        return self._look

    # -- data in -------------------------------------------------------------
    def show(
        self,
        values,
        row_labels,
        col_labels,
        *,
        kind: str = "div",
        blocked=None,
        selected: int | None = None,
        lo: float | None = None,
        hi: float | None = None,
        version=None,
        by_sign: bool = False,
    ) -> None:
        """Display ``values`` (rows × cols). kind: "seq" | "div" | "plain" | "mask".

        blocked: None or bool cells of the same shape (True = masked cell). selected: the
        highlighted query row, or None. lo, hi: the finite min and max of the whole matrix
        (read off ``values`` when None: an ndarray only). version: equal versions mean equal
        values and blocked (None: compare the ndarrays); by_sign: see palette.width_for.
        """
        if lo is None or hi is None:
            values = np.asarray(values)
            lo, hi = finite_range(values)
        rows, cols = tuple(row_labels), tuple(col_labels)
        w = palette.header_width(cols, palette.width_for(lo, hi, by_sign)) + self.extra_cell  # wider: a header's digits
        lw = self._lw if rows == self.row_labels else min(LABEL_MAX, max(map(len, rows), default=0)) + 1  # cached
        same_shape = (
            tuple(values.shape) == tuple(self.values.shape)
            and (kind, rows, cols, w, lw) == (self.kind, self.row_labels, self.col_labels, self._w, self._lw)
            and (blocked is None) == (self.blocked is None)
        )
        if same_shape and self._same_values(values, blocked, version):
            self.select(selected)
            return
        old_legend = palette.legend(self.kind, None, self._lw, self._scale)
        self.values, self.blocked, self.version = values, blocked, version
        self.row_labels, self.col_labels, self.kind = rows, cols, kind
        self._w, self._lw, self._scale = w, lw, palette.span(lo, hi)
        if same_shape and self.size.height:  # numbers changed, the layout did not
            if palette.legend(kind, None, lw, self._scale) != old_legend:
                self.refresh(Region(0, 0, lw, 1))  # the legend is in the label column
            self._repaint_changed_cells()
            self.select(selected)
            return
        self._laid_out_again(values.shape, selected)

    def _laid_out_again(self, shape, selected: int | None) -> None:
        """A new shape, widths or labels: every cached row and the header go, the cursor stays inside."""
        self.selected = selected
        self._cells.clear()
        self._cache.clear()
        self._header = None
        r, c = self.cursor
        self.cursor = (min(r, max(0, shape[0] - 1)), min(c, max(0, shape[1] - 1)))
        self.virtual_size = Size(self._lw + shape[1] * (self._w + 1), shape[0] + 1)
        self.refresh()

    def _same_values(self, values, blocked, version) -> bool:
        """Unchanged by version when both have one, else (ndarrays) cell by cell."""
        if version is not None or self.version is not None:
            return version is not None and version == self.version
        return np.array_equal(values, self.values, equal_nan=True) and (
            blocked is None or (self.blocked is not None and np.array_equal(blocked, self.blocked))
        )

    def _repaint_changed_cells(self) -> None:
        """Repaint the cells in view whose text or colour changed (a row not drawn before: whole)."""
        sy, sx, cw = int(self.scroll_offset.y), int(self.scroll_offset.x), self._w + 1
        width, height = self._view()
        old, self._cells = self._cells, {}
        regions = []
        for y in range(1, height):
            r = sy + y - 1
            if r >= self.values.shape[0]:
                break
            window, cells = old.get(r, (None, None))
            if window is None:  # the whole line, as _invalidate does
                regions.append(Region(0, y, width, 1))
                self._cache.pop(r, None)
                continue
            runs = changed_runs(cells, self._row_cells(r, *window))
            if runs:  # one region from the first changed cell to the last: Textual writes a line's
                # dirty span from the widget's left edge, so two regions on a line write it twice
                (i0, _), (_, i1) = runs[0], runs[-1]
                x0 = max(self._lw, self._lw + (window[0] + i0) * cw + 1 - sx)
                x1 = min(width, self._lw + (window[0] + i1) * cw - sx)
                if x1 > x0:
                    regions.append(Region(x0, y, x1 - x0, 1))  # not over the scrollbars
                self._cache.pop(r, None)
        if regions:  # in one call: each call clears the widget's cached sizes and styles
            self.refresh(*regions)
        for r in set(self._cache) - set(self._cells):
            del self._cache[r]

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
        width, height = self._view()
        if 1 <= y < height:
            self.refresh(Region(0, y, width, 1))

    # -- drawing ---------------------------------------------------------------
    def _row_cells(self, r: int, c0: int, c1: int) -> tuple:
        """(texts, codes) of the visible cells c0..c1-1 of row r, cached with that window."""
        cached = self._cells.get(r)
        if cached is None or cached[0] != (c0, c1):
            cells = row_cells(self.values, self.blocked, self.kind, r, c0, c1, self._w, self._scale, self.extra_cell)
            cached = self._cells[r] = ((c0, c1), cells)
        return cached[1]

    def _row_text(self, r: int, c0: int = 0, c1: int | None = None) -> list[str]:
        """The texts of cells c0..c1-1 of row r, right-aligned (all columns when c1 is None)."""
        c1 = self.values.shape[1] if c1 is None else c1
        args = (self.values, self.blocked, self.kind, r, c0, c1, self._w, self._scale, self.extra_cell)
        texts, _codes = row_cells(*args)
        return list(texts)

    def cell_text(self, row: int, col: int) -> str:
        """What cell (row, col) prints, e.g. "0.870", "NaN", "-1e9"."""
        return self._row_text(row, col, col + 1)[0].strip()

    def _data_strip(self, r: int, c0: int, c1: int) -> Strip:
        """Columns c0..c1-1 of row r (the visible ones), cached until r's look changes."""
        cached = self._cache.get(r)
        if cached is not None and cached[0] == (c0, c1):
            return cached[1]
        texts, codes = self._row_cells(r, c0, c1)
        cur = self.cursor[1] - c0 if (self.has_focus and self.cursor[0] == r) else -1
        segs = row_segments(self._styles(), self.kind, texts, codes, r == self.selected, cur)
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
            legend = palette.legend_segments(self.kind, self._scale, lw, look)
            return Strip([*legend, *body], lw + body.cell_length).extend_cell_length(width, look.gap).crop(0, width)
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

    def on_resize(self) -> None:
        self._cache.clear()
        self._scroll_to_cell(*self.cursor)  # a pane made smaller keeps the selected row in view

"""How the pipeline screen fits its rows of panes to the screen (pipeline_layout.py plans each
row: shrink its widest grids, then wrap its third pane, then stack one pane a line): the grids'
common max-height, their widths and titles, and on a screen larger than DESIGN_SIZE wider cells
and a larger chart row.

A mixin of PipelineScreen's methods. What it reads of the screen, and all it reads: ``grids``
(name -> MatrixGrid), ``titles`` (name -> full and short title), ``sizes`` (pipeline_layout's Sizes,
read from the CSS on mount), the widgets #explain, #pipeline, #chart and #inspector, and
``redraw_grids()``, which hands every grid its view again. What it keeps is its own (start_fit).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from .pane_lines import PaneColumn, screen_lines
from .pipeline_layout import PaneSize, fit_cap, join_rows, plan_row, row_extras, title_width

if TYPE_CHECKING:  # the checker sees the screen the mixin is mixed into (PipelineScreen)
    from textual.screen import Screen as _Host

    from .keyed_grid import KeyedGrid
    from .pipeline_layout import Sizes
else:
    _Host = object

ROWS = (("X", "W_Q", "W_K"), ("Y",), ("W_V", "Q", "K"), ("V", "S", "M"), ("A", "O", "H"))
GRID_MIN_HEIGHT = 7  # the least height worth capping a grid pane to: title, header, rows, scrollbar
DESIGN_SIZE = (120, 40)  # the screen the panes' CSS sizes are made for; a larger one grows them


def set_changed(widget, attr: str, value) -> None:
    """Assign only on change: a display or title change costs a relayout."""
    if getattr(widget, attr) != value:
        setattr(widget, attr, value)


class PaneFit(_Host):
    if TYPE_CHECKING:  # what it reads of PipelineScreen (the module docstring lists it)
        grids: dict[str, KeyedGrid]
        titles: dict[str, tuple[str, str]]
        sizes: Sizes | None

        def redraw_grids(self) -> None: ...

    def start_fit(self) -> None:
        """The fit's own state, none of it made yet (the screen's __init__ calls this)."""
        self._widths: dict[str, tuple] = {}  # grid -> the (width, max-height) last set
        self._layout_key: tuple | None = None  # what the last fit was computed from
        self._chart_size: tuple = (None, None)  # (height, width) set on the chart row, None: the CSS's
        self.row_modes: dict[str, str] = {}  # "row0".. -> "line" | "wrapped" | "stacked", rows shown
        self._widening = False  # inside _widen_cells' own fit: the cells it set stay (no second round)

    @property
    def fit_sizes(self) -> Sizes:
        """``sizes``, read on mount: every fit below runs after it (_stack_rows returns before)."""
        assert self.sizes is not None
        return self.sizes

    def _stack_rows(self) -> None:
        """Fit the rows of panes to the screen: shrink, wrap, then stack (pipeline_layout).

        When the rows would be taller than the screen, every grid gets the same max-height,
        the largest that fits the chart row on the screen too, else the one that keeps A and
        O on the first screen (a capped grid scrolls and keeps the selected row in view);
        when even GRID_MIN_HEIGHT would not fit, grids keep their height and the page scrolls.
        """
        width, height = self.size
        if not width or self.sizes is None:
            return
        explain = self.query_one("#explain")
        budget = height - 2 - (explain.outer_size.height or 2 if explain.display else 0)
        key = (
            width,
            budget,
            tuple((g.display, g.virtual_size, g.values.shape, self.titles.get(n)) for n, g in self.grids.items()),
        )
        if key == self._layout_key:  # a knob that changes only numbers: nothing to re-fit
            return
        self._layout_key = key
        rows = [(f"row{i}", [n for n in names if self.grids[n].display]) for i, names in enumerate(ROWS)]
        rows = [(row, shown) for row, shown in rows if shown]
        avail = width - self.sizes.scrollbar  # the container's scrollbar, when it has one
        rows, plans, cap = self._plan_rows(rows, avail, budget, width, height)
        if self._widen_cells(rows, plans, avail, width, cap):
            return  # the grids were handed wider cells and fitted again
        self.row_modes = {row: plan.mode for (row, _shown), plan in zip(rows, plans)}
        for (_row, shown), plan in zip(rows, plans):
            self._apply_plan(shown, plan, cap)
        stacked = self.sizes.chart_row_width > width
        page = self.query_one("#pipeline", PaneColumn)
        page.set_lines(screen_lines(rows, plans, stacked))
        page.set_class(stacked, "chart-stacked")
        used = sum(min(cap, h) for (_row, shown), p in zip(rows, plans) for h in self._line_heights(shown, p, cap))
        self._grow_chart_row(0 if stacked else budget - used - self.sizes.chart_row_height, width, height)

    def _widen_cells(self, rows, plans, avail: int, width: int, cap: int) -> bool:
        """Beyond DESIGN_SIZE's width, wider cells (pipeline_layout.extra_cell), each row's own: every row
        then ends within a cell's widening of the right edge (one width for all, the fullest row's, left
        the lesson's first row at 178 of 200), measured at the grids' height cap (a capped grid's scrollbar
        takes a column). True when the cells changed and the rows were fitted again (once: the fit inside
        keeps them, so a plan that the wider cells change cannot swing back and forth)."""
        bar, grids = self.fit_sizes.scrollbar, self.grids
        sizes = [[(grids[n].natural_width(bar, cap) - grids[n].extra_cell * grids[n].values.shape[1],
                   grids[n].values.shape[1]) for n in shown] for _row, shown in rows]  # fmt: skip
        wide = width > DESIGN_SIZE[0] and all(p.mode == "line" for p in plans)
        extra: dict[str, int] = {}  # grid -> the columns its cells widen by
        for (_row, shown), row in zip(rows, sizes):
            extra.update(zip(shown, row_extras(row, avail) if wide else [0] * len(shown)))
        extra.update({n: 0 for n in grids if n not in extra and not wide})
        if self._widening or all(grids[n].extra_cell == e for n, e in extra.items()):
            return False
        for n, e in extra.items():
            grids[n].extra_cell = e
        self._widening = True
        try:
            self.redraw_grids()  # every grid is handed its view again, at the new cell width
            self._stack_rows()
        finally:
            self._widening = False
        return True

    def _grow_chart_row(self, spare: int, width: int, height: int) -> None:
        """On a screen larger than DESIGN_SIZE, the chart and the inspector take the lines and
        columns the grids leave (taller bars, more keys); at DESIGN_SIZE and below, the CSS sizes."""
        w0, h0 = DESIGN_SIZE
        grow_h = max(0, spare) if height > h0 else 0  # every spare line: at 200×60 ten were left empty
        grow_w = max(0, width - w0) // 2
        size = (
            self.fit_sizes.chart_row_height + grow_h if grow_h else None,
            self.fit_sizes.chart_width + grow_w if grow_w else None,
        )
        if size != self._chart_size:
            self._chart_size = size
            chart, inspector = self.query_one("#chart"), self.query_one("#inspector")
            chart.styles.height = inspector.styles.height = size[0]
            chart.styles.width = size[1]

    def _plan_rows(self, rows, avail: int, budget: int, width: int, height: int) -> tuple[list, list, int]:
        """The rows (join_rows may move a pane up), each row's plan and the grids' common
        max-height (cap). When the page cannot be on one screen, planned again preferring rows
        that show their grids whole (plan_row's ``whole``)."""
        rows_, plans, cap, fit = self._plan_pass(rows, avail, budget, width, height, whole=False)
        if fit is None:
            rows_, plans, cap, fit = self._plan_pass(rows, avail, budget, width, height, whole=True)
        return rows_, plans, cap

    def _plan_pass(self, rows, avail: int, budget: int, width: int, height: int, whole: bool) -> tuple:
        """(rows, plans, cap, fit); the cap is taller than the CSS's only on a screen taller than
        DESIGN_SIZE; fit is None when the page, the chart too, cannot be on one screen."""
        sz = self.fit_sizes
        top = sz.grid_max_height + max(0, height - DESIGN_SIZE[1])
        cap = top
        chart = sz.chart_row_height if width >= sz.chart_row_width else None  # a stacked chart row: below
        for _ in range(2):  # the cap changes the scrollbars, and so the widths: plan twice
            joined = join_rows([shown for _row, shown in rows], partial(self._pane_size, cap=cap), avail)
            rows_ = [(row, shown) for (row, _), shown in zip(rows, joined) if shown]
            plans = [self._plan(shown, avail, cap, whole) for _row, shown in rows_]
            heights = [h for (_row, shown), p in zip(rows_, plans) for h in self._line_heights(shown, p, cap)]
            # Everything, the chart too, on one screen when grids keep GRID_MIN_HEIGHT lines;
            # else A and O on the first screen; else whole grids, and the page scrolls.
            fit = fit_cap(heights, budget - chart, GRID_MIN_HEIGHT, top) if chart else None
            cap = fit or min(top, budget // max(1, len(heights)))
            if cap < GRID_MIN_HEIGHT:
                cap = top
        return rows_, plans, cap, fit

    def _apply_plan(self, shown: list[str], plan, cap: int) -> None:
        """Set each grid's width, max-height and title."""
        bar = self.fit_sizes.scrollbar
        widths = [self.grids[n].snap_width(w, bar, cap) for n, w in zip(shown, plan.widths)]
        if plan.mode == "line":  # columns freed by whole-cell snapping go to the shrunk panes
            spare = sum(plan.widths) - sum(widths)
            for i, n in enumerate(shown):
                natural = self.grids[n].natural_width(bar, cap)
                if spare and widths[i] < natural:
                    grown = min(natural, self.grids[n].snap_width(widths[i] + spare, bar, cap))
                    spare -= grown - widths[i]
                    widths[i] = grown
        for n, snapped, full_title in zip(shown, widths, plan.full_titles):
            grid = self.grids[n]
            if self._widths.get(n) != (snapped, cap):
                self._widths[n] = (snapped, cap)
                grid.styles.width = snapped
                grid.styles.max_height = cap
            full_title = full_title and snapped >= title_width(self.titles[n][0])
            set_changed(grid, "border_title", self.titles[n][0 if full_title else 1])

    def _line_heights(self, shown: list[str], plan, cap: int) -> list[int]:
        """Natural height of each screen line of a planned row: its tallest grid's title,
        header and rows, and a horizontal scrollbar when the grid was shrunk."""

        def natural(n: str, w: int) -> int:
            grid = self.grids[n]
            return grid.values.shape[0] + 2 + (w < grid.natural_width(self.fit_sizes.scrollbar, cap))

        h = [natural(n, w) for n, w in zip(shown, plan.widths)]
        groups = {"line": [h], "wrapped": [h[:2], h[2:]]}.get(plan.mode, [[x] for x in h])
        return [max(g) for g in groups if g]

    def _pane_size(self, n: str, cap: int) -> PaneSize:
        grid, (full, short), bar = self.grids[n], self.titles[n], self.fit_sizes.scrollbar
        natural, least = grid.natural_width(bar, cap), grid.least_width(3, bar, cap)
        return PaneSize(natural, least, title_width(full), title_width(short))

    def _plan(self, shown: list[str], avail: int, cap: int, whole: bool = False):
        return plan_row([self._pane_size(n, cap) for n in shown], avail, whole)

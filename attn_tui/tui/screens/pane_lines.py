"""PaneLines: the pipeline page's layout, its panes in lines, with no container per line.

The scrolling column (:class:`PaneColumn`) holds the grids, the chart and the inspector as its own children. The fit
(pipeline_layout.py) decides which panes share a screen line: a row of three on one line, or
wrapped (the first two, then the third), or stacked (one a line); the chart and the inspector
side by side or stacked. Each line is laid out left to right exactly as Textual's horizontal
layout does (widths, margins, auto heights, max-height, ``1fr``), and the lines are placed one
under the other, each as tall as its tallest pane. That is the picture the rows of
``Horizontal`` containers gave, without their ten containers (each costs style, compose and
layout work on the first frame). A pane that no line names gets a line of its own at the end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Offset
from textual.layout import Layout, WidgetPlacement
from textual.layouts.horizontal import HorizontalLayout

from ..framework import clear_arrangement_cache

if TYPE_CHECKING:
    from typing import Any

_ROW = HorizontalLayout()


class PaneLines(Layout):
    """``lines``: the ids of the panes on each screen line, top to bottom (set by the screen)."""

    name = "pane-lines"

    def __init__(self) -> None:
        self.lines: tuple[tuple[str, ...], ...] = ()

    def arrange(self, parent, children, size, greedy: bool = True):
        parent.pre_layout(self)
        by_id = {child.id: child for child in children}
        named = {i for line in self.lines for i in line}
        lines = [[by_id[i] for i in line if i in by_id] for line in self.lines]
        lines += [[child] for child in children if child.id not in named]
        placements: list[WidgetPlacement] = []
        y = 0
        for line in lines:
            if not line:
                continue
            placed = _ROW.arrange(parent, line, size, greedy)
            placements += WidgetPlacement.translate(placed, Offset(0, y)) if y else placed
            y = max(y, WidgetPlacement.get_bounds(placements).bottom)
        return placements


class PaneColumn(VerticalScroll, inherit_bindings=False):
    """The scrolling column of panes. Its arrow keys are not bound: up/down select the query
    row wherever the focus is (a focused grid moves its cursor and the page follows it);
    page up/down, home and end still scroll the page."""

    BINDINGS = [
        Binding("pageup", "page_up", show=False),
        Binding("pagedown", "page_down", show=False),
        Binding("home", "scroll_home", show=False),
        Binding("end", "scroll_end", show=False),
    ]

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.pane_lines = PaneLines()  # its panes in the lines the screen's fit chose (pane_lines.py)

    @property
    def layout(self) -> PaneLines:
        return self.pane_lines

    def set_lines(self, lines) -> None:
        """The panes on each screen line; a new arrangement lays the page out again (the page's
        own arrangement is cached by its size: a refresh clears only its ancestors')."""
        lines = tuple(tuple(line) for line in lines)
        if lines != self.pane_lines.lines:
            self.pane_lines.lines = lines
            clear_arrangement_cache(self)
            self.refresh(layout=True)


def screen_lines(rows, plans, chart_stacked: bool) -> list[tuple[str, ...]]:
    """Grid ids on each screen line: a row on one line; wrapped, its first two panes then the
    third (the third pane of V | S | M under V); stacked, one pane a line. Then the chart and
    the inspector: side by side, or one above the other."""
    out = []
    for (_row, shown), plan in zip(rows, plans):
        ids = tuple(f"grid-{n}" for n in shown)
        out += {"line": [ids], "wrapped": [ids[:2], ids[2:]]}.get(plan.mode, [(i,) for i in ids])
    out += [("chart",), ("inspector",)] if chart_stacked else [("chart", "inspector")]
    return [line for line in out if line]

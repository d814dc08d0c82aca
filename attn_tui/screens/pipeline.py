"""The pipeline screen (the home, key `p`): every pane of the lesson's computation.

Rows of panes in a scrolling container: X | W_Q | W_K, then W_V | Q | K, V | S | M,
A | O | entropies, then the softmax chart and the cell inspector (Y joins the first
row in cross-attention). At 120×40 everything fits; on a narrow terminal the panes
stack and scroll, and tab/shift+tab reach each one. The screen only renders the
app's State; keys change it through app.set_state.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen

from .. import keys
from ..state import State
from ..widgets.inspector import Inspector
from ..widgets.key_bar import KeyBar
from ..widgets.matrix_grid import MatrixGrid
from ..widgets.panes import grid_view
from ..widgets.softmax_chart import SoftmaxChart
from ..widgets.explain import ExplainLine
from ..widgets.status import StatusLine

EDITABLE = {"X", "Y", "W_Q", "W_K", "W_V", "Q", "K", "V"}
ROWS = (("X", "Y", "W_Q", "W_K"), ("W_V", "Q", "K"), ("V", "S", "M"), ("A", "O", "H"))


class PipelineScreen(Screen):
    """X → Q, K, V → S → M → A → O, the chart, the entropies and the inspector."""

    name_for_keys = "pipeline"
    BINDINGS = keys.bindings("pipeline")
    AUTO_FOCUS = "#grid-A"  # arrows move in A at once, and A is in view on a small terminal

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield ExplainLine(id="explain")  # edit_actions: NaN rows, float16 fill, ...
        with VerticalScroll(id="pipeline", can_focus=False):
            for i, names in enumerate(ROWS):
                with Horizontal(classes="pane-row", id=f"row{i}"):
                    for name in names:
                        yield MatrixGrid(name, editable=name in EDITABLE, id=f"grid-{name}",
                                         classes="pane grid")
            with Horizontal(classes="pane-row", id="row-chart"):
                yield SoftmaxChart(id="chart", classes="pane")
                yield Inspector(id="inspector", classes="pane")
        yield KeyBar(id="keybar")

    def on_mount(self) -> None:
        self.query_one("#inspector").border_title = "cell inspector"
        self.watch(self.app, "state", self.show, init=True)

    def show(self, state: State) -> None:
        """Hand each pane its part of ``state`` (the trace is computed once, in State)."""
        if state is None:
            return
        for grid in self.query(MatrixGrid):
            view = grid_view(grid.matrix, state)
            _set(grid, "display", view is not None)
            if view is None:
                continue
            _set(grid, "border_title", view.title)
            grid.show(view.values, view.rows, view.cols, kind=view.kind, blocked=view.blocked,
                      selected=state.row if view.selected else None)
            if view.selected and grid.cursor[0] != state.row:
                grid.move_cursor(state.row, grid.cursor[1], post=False)
        for i, names in enumerate(ROWS):
            _set(self.query_one(f"#row{i}"), "display",
                 any(self.query_one(f"#grid-{n}").display for n in names))
        self.query_one("#status", StatusLine).show(state)
        self.query_one("#explain", ExplainLine).show(state)
        self.query_one(SoftmaxChart).show(state)
        self.query_one(Inspector).show(state)


def _set(widget, attr: str, value) -> None:
    """Assign only on change: a display or title change costs a relayout."""
    if getattr(widget, attr) != value:
        setattr(widget, attr, value)

"""The pipeline screen (the home, key `p`): every pane of the lesson's computation.

Rows of panes in a scrolling page: X | W_Q | W_K, then W_V | Q | K, V | S | M,
A | O | entropies, then the softmax chart and the cell inspector (Y gets a row of its
own in cross-attention). The panes are the page's own children, laid out in the lines
the fit chooses (pane_lines.py), with no container per row. At 120×40 the lesson's pipeline fits on one screen. A row
wider than the screen first shrinks its widest grids (they scroll horizontally inside
their pane), then wraps its third pane to a second line, and only then stacks one pane
per line (pipeline_layout.py); narrow panes get short titles ("S (5×5)"). The
container scrolls and tab/shift+tab reach every pane. The status line (and the
explanation line, when there is one) sits under the panes, above the key bar, next to
the chart: what a knob changes stays in the bottom half, so a keypress repaints one
region and not the whole screen. The screen only renders the app's State; keys change
it through app.set_state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen

from ...core.matrices import MATRICES
from .. import keys
from ..state import State
from ..views.chart import chart_view
from ..views.grids import grid_view, unchanged_views
from ..views.inspector import inspector_lines
from ..views.status import status_view
from ..widgets.explain import ExplainLine
from ..widgets.inspector import Inspector
from ..widgets.key_bar import KeyBar
from ..widgets.softmax_chart import SoftmaxChart
from ..widgets.status import StatusLine
from . import warm
from .keyed_grid import KeyedGrid
from .pane_lines import PaneColumn
from .pipeline_fit import ROWS, PaneFit, set_changed
from .pipeline_layout import Sizes

if TYPE_CHECKING:
    from typing import Any

    from ..app import AttentionApp


class PipelineScreen(PaneFit, Screen):
    """X → Q, K, V → S → M → A → O, the chart, the entropies and the inspector."""

    if TYPE_CHECKING:  # the explorer's app, for the type checker (the app module is above the screens)
        app: AttentionApp

    name_for_keys = "pipeline"
    BINDINGS = keys.bindings("pipeline")
    AUTO_FOCUS = "#grid-A"  # arrows move in A at once, and A is in view on a small terminal
    _stale = False
    _resumed = False  # resumed once (on_screen_resume)
    shown: State | None = None  # the state the panes show (a large one may be computing: warm.py)

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.titles: dict[str, tuple[str, str]] = {}  # grid -> (full title, short title), read by the fit
        self.sizes: Sizes | None = None  # read from the styles on mount
        self._grids_state: State | None = None  # the state the grids were last handed
        self.start_fit()  # pipeline_fit.PaneFit's own state

    def compose(self) -> ComposeResult:
        # The panes get their data before the first layout, so the first frame is final.
        self.grids = {
            n: KeyedGrid(n, editable=MATRICES[n].typed != "never", id=f"grid-{n}", classes="pane grid")
            for names in ROWS
            for n in names
        }
        self._show_grids(self.app.state)
        with PaneColumn(id="pipeline", can_focus=False):  # the panes, in lines the fit sets (pane_lines.py)
            yield from self.grids.values()
            yield SoftmaxChart(id="chart", classes="pane")
            yield Inspector(id="inspector", classes="pane")
        # Under the panes, next to the chart: a knob repaints one region of the screen.
        yield ExplainLine(id="explain")  # State.explanations (core/modes.py): NaN rows, float16 fill, ...
        yield StatusLine(id="status")
        yield KeyBar(keys.bar_label, id="keybar")

    def on_mount(self) -> None:
        self.sizes = Sizes.read(self)
        self.query_one("#inspector").border_title = "cell inspector"
        self.watch(self.app, "state", self.show, init=True)
        self.call_after_refresh(self._open_on_A)

    def _open_on_A(self) -> None:
        """On a small terminal (rows wrapped) open on A, the lesson's centre, not on X, with its
        selected row in view (at 40×12 induction-demo's A showed t1..t8, the selected t11 below)."""
        if any(mode != "line" for mode in self.row_modes.values()):
            self._scroll_to_pane(self.grids["A"])

    def _scroll_to_pane(self, grid) -> None:
        """The page scrolled to ``grid``'s top; when the page is shorter than the pane, lower, so that
        its cursor row (A's: the selected query row) is in view too, after the next two refreshes:
        after Textual's own scroll to the focused pane, on the final layout."""
        if grid.outer_size.height <= self.query_one("#pipeline").scrollable_content_region.height:
            grid.scroll_visible(top=True, animate=False)
        else:
            self.call_after_refresh(self.call_after_refresh, self._pane_in_view, grid)

    def _pane_in_view(self, grid) -> None:
        page = self.query_one("#pipeline")
        top = grid.virtual_region.y  # in the page's own lines: not moved by its scrolling
        line = top + grid.row_line(grid.cursor[0])
        y = max(top, line - page.scrollable_content_region.height + 1)
        page.scroll_to(y=min(y, page.max_scroll_y), animate=False, immediate=True)

    def on_resize(self) -> None:
        self._stack_rows()
        self.call_after_refresh(self._keep_focus_in_view)

    def _keep_focus_in_view(self, again: bool = True, moved: bool = False) -> None:
        """After a resize: back to the top when every pane fits, else the focused pane
        (A when the explorer opened) in view, as on opening on a small terminal. Checked
        again after the next refresh: scrollbars that come and go with the new widths
        can still move the panes by a line (a pane moved to is moved to again, on the final layout)."""
        page = self.query_one("#pipeline")
        focused = self.focused
        if page.max_scroll_y == 0:
            page.scroll_home(animate=False)
        elif focused is not None and page in focused.ancestors:
            if moved or not page.region.contains_region(focused.region):
                moved = True
                if focused in self.grids.values():
                    self._scroll_to_pane(focused)
                else:
                    focused.scroll_visible(top=True, animate=False)
        if again:
            self.call_after_refresh(self._keep_focus_in_view, False, moved)

    def on_key(self) -> None:
        """The session's first key dismisses the status line's "new here?" hint for good."""
        if self.app.first_screen:
            self.app.first_screen = False
            self.query_one("#status", StatusLine).show(status_view(self.app.state))

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Runs before Textual's own resume (a subclass's handler first). The first resume, the
        launch's: no restyle of every pane, each was styled as it was mounted a moment before and
        focus restyles the pane it focuses (~5 ms of the launch, issue 32); a later one restyles."""
        if not self._resumed:
            self._resumed, event.refresh_styles = True, False
        if self._stale:
            self.show(self.app.state)

    def show(self, state: State) -> None:
        """Hand each pane its part of ``state`` (the trace is computed once, in State).

        While another screen is shown, only note that the panes are stale: they are
        redrawn once when this screen comes back. A large state that would take long to
        compute is computed in a worker first (warm.py), the last drawing kept meanwhile.
        """
        if state is None:
            return
        self._stale = not self.is_current
        if self._stale or warm.start(self, state):
            return
        opened = self.shown is not None and state.lineage != self.shown.lineage  # another scenario
        self.shown = state
        warm.drawn(self)
        self._show_grids(state)
        self.query_one("#explain", ExplainLine).show(state.explanations)  # its height is in the fit
        self._stack_rows()
        self.query_one("#status", StatusLine).show(status_view(state, self.app.first_screen))
        self.query_one(SoftmaxChart).show(chart_view(state))
        self.query_one(Inspector).show(inspector_lines(state))
        self.call_after_refresh(self._align_query_rows)
        if opened:  # as at launch: the focus on A, and on a small terminal A in view
            self.grids["A"].focus(scroll_visible=False)
            self.call_after_refresh(self._open_on_A)

    def _align_query_rows(self) -> None:
        """Grids whose rows are the query tokens start at the same row (each scrolled on its own
        to keep the selected row in view, a grid with a scrollbar showed t2.. beside one at t1..)."""
        linked = [g for n, g in self.grids.items() if g.display and MATRICES[n].row_linked]
        if not linked:
            return
        top = max(int(g.scroll_offset.y) for g in linked)
        for g in linked:
            if int(g.scroll_offset.y) != top and top <= g.max_scroll_y:
                g.scroll_to(y=top, animate=False, immediate=True)

    def redraw_grids(self) -> None:
        """Every grid handed its view again (the fit changed their cell width: pipeline_fit)."""
        self._grids_state = None
        self._show_grids(self.app.state)

    def _show_grids(self, state: State) -> None:
        unchanged, self._grids_state = unchanged_views(self._grids_state, state), state
        for name, grid in self.grids.items():
            if name in unchanged:
                continue  # the same values, labels, title and selected row: nothing to hand over
            view = grid_view(name, state)
            set_changed(grid, "display", view is not None)
            if view is None:
                continue
            self.titles[name] = (view.title, view.short or view.title)
            if not grid.border_title:  # until the first layout picks the title that fits
                grid.border_title = view.title
            args, kw = view.show_args(state.row)
            grid.show(*args, **kw)
            if view.selected and grid.cursor[0] != state.row:
                grid.move_cursor(state.row, grid.cursor[1], post=False)

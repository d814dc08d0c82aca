"""The lenses screen (`l`): the lesson's readings of one attention row, live.

Correlation receiver, kernel smoother (Nadaraya–Watson), the box-kernel switch
(W_Q = W_K = 0 gives Lesson 07's W_avg), associative memory, rank, gradient and cost. Every panel
follows the app's state: the selected row, the scale knob, the scenario.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Grid, VerticalScroll
from textual.screen import Screen
from textual.worker import get_current_worker

from .. import keys
from ..fmt import knob
from ..views.lenses import PANELS
from ..views.rank_lens import RANK_TITLE, rank_reading
from ..widgets.key_bar import KeyBar
from ..widgets.lens_panels import LensPanel, RankPanel

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.tui.state import State

    from ..app import AttentionApp

FIRST = 4  # panels before the rank chart: receiver, smoother, box kernel, memory
IN_LOOP = 64 * 64  # T·T' cells up to which the lenses are computed on the event loop (a few ms)


class LensesScreen(Screen):
    """Six lenses and the rank chart for the selected row of the current state."""

    if TYPE_CHECKING:  # the explorer's app, for the type checker (the app module is above the screens)
        app: AttentionApp

    HELP = (
        "The lesson's engineering lenses on the selected row: correlation receiver, kernel smoother, "
        "memory, rank, gradient, cost."
    )
    name_for_keys = "lenses"
    BINDINGS = keys.bindings("lenses")

    CSS_PATH = "lessons.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # lessons.tcss: one column when narrow

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="lenses-scroll", can_focus=False):
            with Grid(id="lenses-grid"):
                for pid, (_build, title, help) in list(PANELS.items())[:FIRST]:
                    yield LensPanel(title, help, id=pid, classes="lens-panel")
                rank = RankPanel(id="lens-rank", classes="lens-panel")
                rank.border_title = RANK_TITLE
                yield rank
                for pid, (_build, title, help) in list(PANELS.items())[FIRST:]:
                    yield LensPanel(title, help, id=pid, classes="lens-panel")
        yield KeyBar(keys.bar_label, id="keybar")  # drops low-priority keys on a narrow screen

    def on_mount(self) -> None:
        self.watch(self.app, "state", lambda _state: self.show_state(), init=False)
        self.show_state()

    def on_screen_resume(self) -> None:
        self.show_state()

    def show_state(self) -> None:
        """Redraw every panel from ``app.state`` (only while shown; resume redraws). A small
        scenario is drawn at once; a larger one (T·T' above IN_LOOP cells: SVDs and whole rows
        of thousands of keys) in a thread worker, panel by panel, each pending panel saying
        "computing"; the next change cancels it, and keys are answered meanwhile."""
        if self.app.screen is not self:
            return
        state = self.app.state
        self.sub_title = f"row {state.row + 1}: {state.scenario.tokens[state.row]}   c = {knob(state.scenario.c, 2)}"
        if state.scenario.T * state.scenario.T_k <= IN_LOOP:
            self.workers.cancel_group(self, "lenses")
            for pid, (build, _title, _help) in PANELS.items():
                self.query_one(f"#{pid}", LensPanel).show(build(state))
            self.query_one(RankPanel).show(rank_reading(state), state.rank["singular_values"])
            return
        total = len(PANELS) + 1
        for pid in PANELS:
            self.query_one(f"#{pid}", LensPanel).show(Text(f"computing for row {state.row + 1} … (of {total} lenses)"))
        self._compute(state)

    @work(thread=True, exclusive=True, group="lenses")
    def _compute(self, state: State) -> None:
        """Each lens of ``state`` off the event loop, shown as soon as it is ready."""
        worker = get_current_worker()
        for pid, (build, _title, _help) in PANELS.items():
            view = build(state)
            if worker.is_cancelled:
                return
            self.app.call_from_thread(self._show_panel, state, pid, view)
        text, sv = rank_reading(state), state.rank["singular_values"]
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_rank, state, text, sv)

    def _show_panel(self, state: State, pid: str, view) -> None:
        if state is self.app.state:  # a result of an older state is dropped
            self.query_one(f"#{pid}", LensPanel).show(view)

    def _show_rank(self, state: State, text: str, singular_values) -> None:
        if state is self.app.state:
            self.query_one(RankPanel).show(text, singular_values)

    # -- actions -------------------------------------------------------------
    def action_scroll_panels(self, pages: int) -> None:
        scroll = self.query_one("#lenses-scroll")
        scroll.scroll_relative(y=pages * max(1, scroll.size.height - 2), animate=False)

    def show_lens(self, panel_id: str) -> None:
        """Scroll the panel ``panel_id`` (e.g. "lens-cost") into view."""
        self.query_one(f"#{panel_id}").scroll_visible(animate=False)

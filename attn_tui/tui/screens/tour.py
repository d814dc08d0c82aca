"""The tour (`t`): the lesson page by page, each text beside the live panes it names.

`space`/`n` next page, `b` back, `y`/`enter` "try it" on an exercise page: set up
the scenario and screen the exercise needs (through app.set_state) and go there.
The panes are the explorer's own widgets, read-only, following the app's state.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ...core.builtins import builtin
from ...core.matrices import MATRICES
from .. import keys
from ..actions import PIN_DROPPED
from ..tour_text import PAGES, Page
from ..views import lenses as lens_text
from ..views import lesson_panes
from ..views.chart import chart_view
from ..views.grids import grid_view
from ..widgets.key_bar import KeyBar
from ..widgets.lens_panels import LensPanel
from ..widgets.matrix_grid import MatrixGrid
from ..widgets.softmax_chart import SoftmaxChart

LENS_PANES = {
    "nw": (lens_text.nadaraya_watson, "Kernel smoother  o_t = Σκv/Σκ"),
    "memory": (lens_text.memory, "Associative memory  probe → address → content"),
    "cost": (lens_text.cost, "Cost  parameters and S's size"),
    "corr": (lesson_panes.correlation, lesson_panes.RECEIVER_TITLE),
    "equation": (lesson_panes.equation, "Attn(Q, K, V) now, and the shapes on every edge"),
    "handA": (lesson_panes.handcrafted, "The hand-crafted A, entry by entry, and H(A_t)"),
}


def make_pane(name: str):
    """A fresh read-only widget for the live pane ``name``."""
    if name in MATRICES:
        grid = MatrixGrid(name, classes="tour-grid")
        grid.can_focus = False
        return grid
    if name == "chart":
        return SoftmaxChart(classes="tour-chart")
    return LensPanel(LENS_PANES[name][1], classes="tour-lens", id=f"tour-{name}")


class TourScreen(Screen):
    """One page at a time: text on the left, live panes on the right."""

    HELP = "A guided tour of the lesson: objectives, Q/K/V, S, the scale, the mask, softmax, O, lenses, exercises."
    AUTO_FOCUS = ""
    name_for_keys = "tour"
    BINDINGS = keys.bindings("tour")
    CSS_PATH = "lessons.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # lessons.tcss: one column when narrow

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.index = 0

    @property
    def page(self) -> Page:
        return PAGES[self.index]

    def compose(self) -> ComposeResult:
        with Horizontal(id="tour-main"):
            with Vertical(id="tour-left"):  # the text scrolls; try-it and the keys stay at the bottom
                with VerticalScroll(id="tour-scroll"):  # tab, then ↑/↓: the text scrolls from the keyboard
                    yield Static(id="tour-title", markup=False)
                    yield Static(id="tour-text", markup=False)
                yield Static(id="tour-try", markup=False)
            yield VerticalScroll(id="tour-pane", can_focus=False)
        yield KeyBar(id="keybar")  # drops low-priority keys on a narrow screen

    async def on_mount(self) -> None:
        self.watch(self.app, "state", lambda _state: self.show_state(), init=False)
        await self.show_page()

    def on_screen_resume(self) -> None:
        self.show_state()

    async def show_page(self) -> None:
        """Draw the text of the current page and mount its live panes."""
        p = self.page
        self.query_one("#tour-left").border_title = f"Tour {self.index + 1}/{len(PAGES)}"
        self.query_one("#tour-title", Static).update(p.title)
        self.query_one("#tour-text", Static).update(p.text)
        self.query_one("#tour-scroll").scroll_home(animate=False)
        hint = f"[y] try it: {p.try_it.label}" if p.try_it else ""
        nav = "space/n next · b back · tab: the text, ↑/↓ scroll it"
        self.query_one("#tour-try", Static).update(f"{hint}\n{nav}" if hint else nav)
        pane = self.query_one("#tour-pane")
        await pane.remove_children()
        await pane.mount_all([make_pane(name) for name in p.panes])
        self.show_state()

    def show_state(self) -> None:
        """Redraw the live panes from ``app.state``."""
        if self.app.screen is not self:
            return
        state = self.app.state
        for w in self.query_one("#tour-pane").children:
            if isinstance(w, MatrixGrid):
                gv = grid_view(w.matrix, state)
                w.display = gv is not None
                if gv is not None:
                    w.border_title = gv.title
                    args, kw = gv.show_args(state.row)
                    w.show(*args, **kw)
            elif isinstance(w, SoftmaxChart):
                w.show(chart_view(state))
            else:
                w.show(LENS_PANES[w.id.removeprefix("tour-")][0](state))

    def action_scroll_panels(self, pages: int) -> None:
        pane = self.query_one("#tour-pane")
        pane.scroll_relative(y=pages * max(1, pane.size.height - 2), animate=False)

    async def action_page(self, delta: int) -> None:
        new = max(0, min(len(PAGES) - 1, self.index + delta))
        if new != self.index:
            self.index = new
            await self.show_page()

    async def action_try_it(self) -> None:
        """Set up the page's exercise (scenario, settings, row) and switch to its screen."""
        tr = self.page.try_it
        if tr is None:
            self.notify("This page has no exercise: space/n for the next page.", timeout=3)
            return
        state = self.app.state
        if tr.builtin and state.pin is not None and not tr.pin:
            self.app.notes.note(PIN_DROPPED, "change", timeout=5)
        if tr.builtin:  # another scenario: a pin of the one before would compare nothing changed
            state = state.with_(scenario=builtin(tr.builtin), row=0, cursor=None, pin=None)
        if tr.pin:
            state = state.with_(pin=None).toggle_pin()  # the difference the exercise asks about
        if tr.changes:
            state = state.with_scenario(**dict(tr.changes))
        if tr.row is not None:
            state = state.with_(row=min(tr.row, state.scenario.T - 1))
        if state is not self.app.state:  # the cost lens reads the scenario as it is
            self.app.set_state(state)
        await self.app.switch_mode(tr.mode)
        show = getattr(self.app.screen, "show_lens", None)
        if tr.mode == "lenses" and show:
            show("lens-cost")
        hook = getattr(self.app.screen, "try_it", None)  # a screen's own set-up (the training screen compares)
        if callable(hook):
            hook()
        self.notify(f"{self.page.title}: {tr.label}. Press t to come back to the tour.", timeout=5, markup=False)

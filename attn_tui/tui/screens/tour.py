"""The tour (`t`): the lesson page by page, each text beside the live panes it names.

`space`/`n` next page, `b` back, `t` the contents, `y`/`enter` "try it" on an exercise page:
set up the scenario and screen the exercise needs (the action actions/tour.py) and go there.
The panes are the explorer's own widgets, read-only, following the app's state.

Predict, then reveal: a page with questions (tour_questions.py) asks first. The learner types
a prediction in the box under the text and presses Enter (`s` skips); only then does the page
show the answer, the prediction beside it and the panes that hold the answer (views/tour_view.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from ...core.matrices import MATRICES
from ...core.session_tour import TourAt
from ...core.train import compare
from .. import keys
from ..quiz import ALLOWED, grade, parse_prediction
from ..tour_text import PAGES, Page
from ..views import lenses as lens_text
from ..views import lesson_panes, rank_lens
from ..views.chart import chart_view
from ..views.grids import grid_view
from ..views.tour_view import contents, open_index, page_text, panes, scene_note
from ..widgets.key_bar import KeyBar
from ..widgets.lens_panels import LensPanel
from ..widgets.matrix_grid import MatrixGrid
from ..widgets.ordered_input import OrderedInput
from ..widgets.softmax_chart import SoftmaxChart
from .keyed_grid import KeyedGrid
from .pickers import ChoiceScreen

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from rich.console import RenderableType

    from ..app import AttentionApp
    from ..state import State

LENS_PANES: dict[str, tuple[Callable[[State], RenderableType], str]] = {  # name -> (its view, its title)
    "nw": (lens_text.nadaraya_watson, "Kernel smoother  o_t = Σκv/Σκ"),
    "memory": (lens_text.memory, "Associative memory  probe → address → content"),
    "cost": (lens_text.cost, "Cost  parameters and S's size"),
    "params": (lambda state: lens_text.cost(state, scores=False), "Cost  parameters (independent of T)"),
    "corr": (lesson_panes.correlation, lesson_panes.RECEIVER_TITLE),
    "equation": (lesson_panes.equation, "Attn(Q, K, V) now, and the shapes on every edge"),
    "handA": (lesson_panes.handcrafted, "The hand-crafted A, entry by entry, and H(A_t)"),
    "handQK": (lesson_panes.hand_qk, "The hand-crafted Q and K"),
    "check": (lesson_panes.causal_check, "Objective 4, now: is A lower-triangular?"),
    "rank": (rank_lens.rank_reading, "Rank  rank S ≤ min(rank Q, rank K) ≤ d_k"),
}


class PredictionInput(OrderedInput):
    """The prediction box. A key that cannot be part of a prediction (n, b, s, t, y, …) is not
    typed: it stays with the tour's bindings, so the page can be left or skipped from the box."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character in ALLOWED

    async def _on_key(self, event) -> None:
        if event.is_printable and event.character not in ALLOWED:
            event.prevent_default()  # Input's own handler does not type it; the key bubbles on


def make_pane(name: str):
    """A fresh read-only widget for the live pane ``name``."""
    if name in MATRICES:
        grid = KeyedGrid(name, classes="tour-grid")
        grid.can_focus = False
        return grid
    if name == "chart":
        return SoftmaxChart(classes="tour-chart")
    return LensPanel(LENS_PANES[name][1], classes="tour-lens", id=f"tour-{name}")


TOC_HINT = "up/down: choose · enter: go to the page · escape: stay"


class TourScreen(Screen):
    """One page at a time: text on the left, live panes on the right."""

    if TYPE_CHECKING:  # the explorer's app, for the type checker (the app module is above the screens)
        app: AttentionApp

    HELP = "A guided tour of the lesson: objectives, Q/K/V, S, the scale, the mask, softmax, O, lenses, exercises."
    AUTO_FOCUS = ""
    name_for_keys = "tour"
    BINDINGS = keys.bindings("tour")
    CSS_PATH = "lessons.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # lessons.tcss: one column when narrow

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.index = 0
        # (page key, question index) -> quiz.Result. The tour's own state, kept here and not in the
        # app's State: no other screen reads it, it is not part of the scenario, and undo and redo
        # must not bring a prediction back or take one away. A kept session holds it (kept, take).
        self.results: dict = {}

    @property
    def page(self) -> Page:
        return PAGES[self.index]

    def compose(self) -> ComposeResult:
        with Horizontal(id="tour-main"):
            with Vertical(id="tour-left"):  # the text scrolls; try-it and the keys stay at the bottom
                with VerticalScroll(id="tour-scroll"):  # tab, then ↑/↓: the text scrolls from the keyboard
                    yield Static(id="tour-title", markup=False)
                    yield Static(id="tour-text", markup=False)
                yield PredictionInput(placeholder="your prediction", id="tour-predict", compact=True)
                yield Static(id="tour-msg", markup=False)
                yield Static(id="tour-try", markup=False)
            yield VerticalScroll(id="tour-pane", can_focus=False)
        yield KeyBar(keys.bar_label, id="keybar")  # drops low-priority keys on a narrow screen

    async def on_mount(self) -> None:
        self.watch(self.app, "state", lambda _state: self.show_state(), init=False)
        if self.app.tour_kept is not None:  # a restored session's place and answers
            self.take(self.app.tour_kept)
            self.app.tour_kept = None
        await self.show_page()

    def kept(self) -> TourAt | None:
        """The learner's place and answers as a kept session holds them; None: the tour untouched."""
        if self.index == 0 and not self.results:
            return None
        return TourAt(self.page.key, tuple((k, i, r.prediction) for (k, i), r in self.results.items()))

    def take(self, at: TourAt) -> None:
        """Restore ``at``: its page, and each answer graded again against the core's answer now (a page
        or question this version does not have is left out)."""
        where = {p.key: n for n, p in enumerate(PAGES)}
        self.index = where.get(at.page, 0)
        self.results = {}
        for key, i, prediction in at.answers:
            if key in where and i < len(PAGES[where[key]].questions):
                self.results[(key, i)] = grade(PAGES[where[key]].questions[i], prediction)

    def on_screen_resume(self) -> None:
        self.show_state()

    @property
    def open_question(self) -> int | None:
        return open_index(self.page, self.results)

    async def show_page(self) -> None:
        """Draw the text of the current page and mount its live panes."""
        p = self.page
        self.query_one("#tour-left").border_title = f"Tour {self.index + 1}/{len(PAGES)}"
        self.query_one("#tour-title", Static).update(p.title)
        self.show_text()
        self.query_one("#tour-scroll").scroll_home(animate=False)
        pane = self.query_one("#tour-pane")
        await pane.remove_children()
        await pane.mount_all([make_pane(name) for name in panes(p, self.results)])
        self.show_state()
        if p.key == "train" and any(compare.measured(d) is None for d in compare.STALL_DKS):
            self.run_worker(self._measure_stall, thread=True, exclusive=True, group="stall")

    def _measure_stall(self) -> None:
        """The unscaled runs the training page reads (seconds): off the event loop, then redraw."""
        for d_k in compare.STALL_DKS:
            compare.unscaled_stall(d_k)
        self.app.call_from_thread(self._stall_measured)

    def _stall_measured(self) -> None:
        if self.page.key == "train":
            self.show_text()

    def show_text(self) -> None:
        """The page's text, its question and the box, or its answers; the try-it and keys line."""
        p, k = self.page, self.open_question
        self.query_one("#tour-text", Static).update(page_text(p, self.results))
        box = self.query_one("#tour-predict", PredictionInput)
        box.display = k is not None
        self.query_one("#tour-msg", Static).update("")
        if k is not None:
            box.clear()
            box.placeholder = "your choice: 1, 2, …" if p.questions[k].is_choice else "your prediction: a number"
            box.focus()
        elif self.focused is box:
            self.set_focus(None)  # letters and digits are keys again
        self._show_try()

    def _show_try(self) -> None:
        """The try-it line, the keys, and the scene note (views/tour_view.py:scene_note), which
        follows the state: the panes may show another scenario than the page speaks of."""
        p, k = self.page, self.open_question
        hint = f"[y] try it: {p.try_it.label}" if p.try_it and k is None else ""
        ask = "enter check · s skip · esc leave the box" if k is not None else ""
        nav = f"{ask} · n next · b back · t contents" if ask else "n next · b back · t contents · tab ↑↓ scroll"
        lines = [scene_note(p, self.app.state), hint, nav]
        self.query_one("#tour-try", Static).update("\n".join(x for x in lines if x))

    def show_state(self) -> None:
        """Redraw the live panes from ``app.state``."""
        if self.app.screen is not self:
            return
        state = self.app.state
        self._show_try()
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
                assert isinstance(w, LensPanel) and w.id is not None  # the pane's third kind (_pane)
                w.show(LENS_PANES[w.id.removeprefix("tour-")][0](state))

    def action_scroll_panels(self, pages: int) -> None:
        pane = self.query_one("#tour-pane")
        pane.scroll_relative(y=pages * max(1, pane.size.height - 2), animate=False)

    async def action_page(self, delta: int) -> None:
        new = max(0, min(len(PAGES) - 1, self.index + delta))
        if new != self.index:
            self.index = new
            await self.show_page()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        k = self.open_question
        if k is None:
            return
        q = self.page.questions[k]
        value, error = parse_prediction(event.value, q)
        if error:
            self.query_one("#tour-msg", Static).update(error)  # one line; the page stays as it was
            return
        await self.commit(k, value)

    async def action_skip(self) -> None:
        k = self.open_question
        if k is None:
            self.app.notes.say("Nothing to skip on this page: n for the next page.", timeout=3)
            return
        await self.commit(k, None)

    async def commit(self, k: int, value: float | None) -> None:
        """Record the prediction (None: skipped) against the core's answer now, and reveal."""
        self.results[(self.page.key, k)] = grade(self.page.questions[k], value)
        await self.show_page()

    def action_leave_input(self) -> None:
        self.set_focus(None)

    def action_contents(self) -> None:
        def jump(index) -> None:
            if index is not None:
                self.run_worker(self.go_to(int(index)), exclusive=True)

        self.app.push_screen(ChoiceScreen("Tour contents", contents(PAGES, self.results), self.index, TOC_HINT), jump)

    async def go_to(self, index: int) -> None:
        self.index = max(0, min(len(PAGES) - 1, index))
        await self.show_page()

    async def action_try_it(self) -> None:
        """Once the page's question is answered: its exercise (scenario, settings, row) set up and its
        screen shown, by the action (actions/tour.py)."""
        tr = self.page.try_it
        if self.open_question is not None:
            self.query_one("#tour-predict", PredictionInput).focus()
            self.app.notes.say("Predict first: type your answer and press enter (s skips).", timeout=3)
            return
        if tr is None:
            self.app.notes.say("This page has no exercise: space/n for the next page.", timeout=3)
            return
        await self.app.run_action(f"do('tour.try_it', {self.page.key!r})")  # actions/tour.py changes the state

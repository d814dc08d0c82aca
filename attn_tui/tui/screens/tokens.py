"""The token view (key `T`): the sequence as text, shaded by where one query looks (as CircuitsVis's
colored_tokens shades a text by the values it is given: here row t of A), beside the matrices of the pipeline.

It shows the State: the head (`>` `<` `}` `{` step through heads and layers here too), the row t
(`j`/`k`, or left/right in the text), c and the mask. `f` flips the direction: who t looks at
(row t of A) or who looks at t (column t of A: the t it shows is the screen's own, ``self.key``).
A column of a large trace (above 512 tokens) needs every row's softmax: it is read in a worker,
the last drawing kept meanwhile. `M` shows where this token looks in every head (screens/model.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.worker import get_current_worker

from .. import keys
from ..state import State
from ..views import prediction_view as pv
from ..views import token_view as tv
from ..views.status import status_view
from ..widgets.key_bar import KeyBar
from ..widgets.status import StatusLine
from ..widgets.text_lines import TextLines
from ..widgets.token_text import TokenText
from .state_screen import StateScreen

if TYPE_CHECKING:
    from typing import Any


# the rows the text, the prediction and the legend keep whatever the others need (_fit; tokens.tcss's max-heights)
MIN_TEXT, MIN_PREDICT, MIN_LEGEND = 3, 6, 4


def no_colour(app) -> bool:
    """True when the terminal shows no colour scale (NO_COLOR, 16 colours): weights then get glyphs."""
    return bool(getattr(app, "no_color", False)) or app.console.color_system in (None, "standard", "windows")


class TokensScreen(StateScreen):
    HELP = (
        "The sequence as text, each token shaded by the weight the selected query gives it (row t of A, "
        "A's colour scale; masked keys struck through), the query underlined; f: who looks at t (column t). "
        "Below: the model's own prediction after t and each head's share of its logit (n: the next head)."
    )
    name_for_keys = "tokens"
    CSS_PATH = "tokens.tcss"
    BINDINGS = keys.bindings("tokens")
    AUTO_FOCUS = "#token-text"
    notes_over_content = True

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.direction = tv.OUT  # who t looks at (row t) or who looks at t (column t)
        self.key = 0  # the token t of the "in" direction (0-based; a key position)
        self.rollout = False  # R, the attention rollout of the whole model, instead of the head's A (key R)
        self._asked: tuple | None = None  # (id(trace), direction, index, rollout) a worker is reading
        self._predicted: tuple | None = None  # (source, row, its PredictionView or the line saying why there is none)

    def compose(self) -> ComposeResult:
        yield TextLines(id="tokens-header", wrap=True)
        yield TokenText(id="token-text")
        yield TextLines(id="tokens-top", wrap=True)
        yield TextLines(id="tokens-predict", wrap=True)
        yield TextLines(id="tokens-legend", wrap=True)
        yield StatusLine(id="status")
        yield KeyBar(keys.bar_label, id="keybar")

    def try_it(self) -> None:
        """The tour's try-it (tour_text: the "text" page): text-demo's sentence on its induction head."""
        self.app.action_do("heads.open_tour_text")  # the action opens it (actions/heads.py)

    def _index(self, state: State) -> int:
        if self.direction == tv.OUT:
            return state.row
        self.key = max(0, min(state.scenario.T_k - 1, self.key))
        return self.key

    def show(self, state: State) -> None:
        if state is None or not self.is_current:
            return
        self.query_one("#status", StatusLine).show(status_view(state))
        self._show_prediction(state)
        index = self._index(state)
        if self.rollout and state.head is None:
            self.rollout = False  # another scenario, of one head, was opened meanwhile
        if self.rollout or (state.large and self.direction == tv.IN):
            whose: object = state.trace
            if self.rollout:
                assert state.head is not None  # rollout was turned off above without a head
                whose = state.head.source
            asked = (id(whose), self.direction, index, self.rollout)
            if self._asked != asked:
                self._asked = asked
                what = "the rollout across the layers" if self.rollout else "the column"
                self.query_one("#tokens-top", TextLines).set_text(Text(f"reading {what} … (keys still work)"))
                self._read(state, self.direction, index, self.rollout)
            return
        self._draw(state, tv.weights_of(state, self.direction, index))

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The rows the text does not need go to the prediction, then the legend (a review at 80x24 found
        the shares cut with "…" under five blank rows). The text keeps 1fr: it, the prediction and the
        legend share what the header, the top keys and the bars leave, whatever the heights are set to."""
        if not self.is_attached:
            return
        text = self.query_one(TokenText)
        predict = self.query_one("#tokens-predict", TextLines)
        legend = self.query_one("#tokens-legend", TextLines)
        if not text.size.height:
            return
        pool = text.size.height + predict.size.height + legend.size.height
        rest = pool - max(MIN_TEXT, text.virtual_size.height)
        wants = [w.get_content_height(w.size, w.size, w.content_region.width) for w in (predict, legend)]
        most = max(MIN_PREDICT, min(wants[0], rest - min(wants[1], MIN_LEGEND)))
        predict.styles.max_height = most  # an unchanged rule is no new layout (Textual's set_rule)
        legend.styles.max_height = max(MIN_LEGEND, rest - most)

    def _draw(self, state: State, w: tv.Weights) -> None:
        view = tv.token_view(state, w, self.rollout)
        glyphs = no_colour(self.app)
        self.query_one(TokenText).show(view.texts, view.joined, view.weights, view.selected, glyphs)
        head = "the whole model · " if self.rollout else f"{state.head.label()} · " if state.head is not None else ""
        self.query_one("#tokens-header", TextLines).set_text(Text(f"{head}{view.title}", style="bold"))
        self.query_one("#tokens-top", TextLines).set_text(Text(view.top))
        legend = tv.legend(glyphs, state, self.rollout, view.joined, view.texts)
        self.query_one("#tokens-legend", TextLines).set_text(Text(legend, style="dim"))
        self.call_after_refresh(self._fit)

    def _show_prediction(self, state: State) -> None:
        """The model's top next tokens after the query and each part's share of the top one's logit (the
        model's own, whatever head, c or edit is shown), or the line saying why there is none."""
        src = state.head.source if state.head is not None else None
        if self._predicted is None or self._predicted[0] is not src or self._predicted[1] != state.row:
            if pv.reads_file(state):  # every head's row t read from the file: in a worker, keys still work
                self._predicted = (src, state.row, "reading the prediction from the file … (keys still work)")
                self._predict(state)
            else:
                self._predicted = (src, state.row, pv.predicted(state))
        v = self._predicted[2]
        current = (state.head.layer, state.head.head) if state.head is not None else None
        text = Text(v, style="dim") if isinstance(v, str) else pv.token_lines(v, current)
        self.query_one("#tokens-predict", TextLines).set_text(text)
        self.call_after_refresh(self._fit)

    @work(thread=True, exclusive=True, group="tokens-predict")
    def _predict(self, state: State) -> None:
        v = pv.predicted(state)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._predict_done, state, v)

    def _predict_done(self, state: State, v) -> None:
        """Keep a worker's prediction, and show it when the query and source are still the screen's."""
        now = self.app.state
        assert state.head is not None  # only a head's source reads its prediction from a file (reads_file)
        if now is None or now.head is None or now.head.source is not state.head.source or now.row != state.row:
            return
        self._predicted = (state.head.source, state.row, v)
        if self.is_current:
            self._show_prediction(now)

    @work(thread=True, exclusive=True, group="tokens")
    def _read(self, state: State, direction: str, index: int, rollout: bool) -> None:
        try:
            w = tv.rollout_weights(state, direction, index) if rollout else tv.weights_of(state, direction, index)
        except ValueError as exc:  # a column of R above 512 tokens: said, and back to the head's A
            self.app.call_from_thread(self._refused, str(exc))
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._read_done, state, w, rollout)

    def _refused(self, why: str) -> None:
        self._asked, self.rollout = None, False
        self.app.notes.say(why)
        self.show(self.app.state)

    def _read_done(self, state: State, w: tv.Weights, rollout: bool) -> None:
        """Draw a worker's result when it is still what the screen asks: R of the same model (R does not
        change with the head shown or c), or the column of the same State."""
        self._asked = None
        now = self.app.state
        if (w.direction, w.at, rollout) != (self.direction, self._index(now), self.rollout):
            return
        if (
            (now.head is not None and state.head is not None and state.head.source is now.head.source)
            if rollout
            else state is now
        ):
            self._draw(now, w)

    # -- keys (keys_screens.py, scope "tokens") --------------------------------
    def action_move(self, step: int) -> None:
        """The next / previous token: the query row (out, through the app's knob) or the key looked at (in)."""
        if self.direction == tv.OUT:
            self.app.action_do("knobs.select_row", step)
            return
        self.key += step
        self.show(self.app.state)

    def action_rollout(self) -> None:
        """`R`: the whole model's attention rollout R (core/heads/rollout.py) <-> this head's A."""
        state = self.app.state
        if not self.rollout and (state.head is None or state.head.source.T_k != state.head.source.T):
            self.app.notes.say("rollout: it reads across the layers of a multi-head source whose keys are its queries")
            return
        self.rollout = not self.rollout
        self._asked = None
        self.show(state)

    def action_flip(self) -> None:
        """Who t looks at <-> who looks at t; the token t stays the same where queries are the keys."""
        s = self.app.state.scenario
        if self.direction == tv.OUT:
            self.direction, self.key = tv.IN, min(self.app.state.row, s.T_k - 1)
        else:
            self.direction = tv.OUT
            if s.T == s.T_k and self.key != self.app.state.row:
                self.app.action_do("knobs.select_row", self.key - self.app.state.row)
                return
        self.show(self.app.state)

"""The model view (key `M`): where the selected query looks in every head of its layer (`M` again:
of every layer), each head a line of its five heaviest keys as text with their weights (BertViz's
model view draws every head of every layer as a picture; here each head is one line of text), so
"which heads look back to the previous token from here, which to the token after its earlier copy"
is one screen.

The weights are the model's own (core/heads/query_top.py: each head's row t from its Q, K, scale
and mask), not the edited scenario's: c or an edit changes the pipeline's head, not the model. They
are read in a worker (every layer of a long captured text is a few hundred rows of Q at a time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.worker import get_current_worker

from ...core.heads.query_top import query_tops
from .. import keys
from ..state import State
from ..views import model_view as mv
from ..views import prediction_view as pv
from ..views.status import status_view
from ..widgets import palette
from ..widgets.key_bar import KeyBar
from ..widgets.status import StatusLine
from ..widgets.text_lines import TextLines
from .state_screen import MODEL_KNOBS, StateScreen
from .tokens import no_colour

if TYPE_CHECKING:
    from typing import Any


class ModelScreen(StateScreen):
    HELP = (
        "Where the selected query looks in every head of its layer (M again: every layer): each head's five "
        "heaviest keys with their weights, and what that key is to the query (the previous token, itself, "
        "the token after an earlier copy of it). Below them: the model's prediction after the query and each "
        "part's share of its logit, ranked (n: the next head; enter: that head in the token view)."
    )
    name_for_keys = "model"
    CSS_PATH = "tokens.tcss"
    BINDINGS = keys.bindings("model")
    AUTO_FOCUS = "#model-scroll"
    notes_over_content = True
    knobs_here = MODEL_KNOBS  # the model's own weights: c, the mask, the pin and edits change nothing here

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.every_layer = False
        # ((id(source), row, layer or None), [HeadTop], PredictionView or why there is none)
        self._done: tuple | None = None

    def compose(self) -> ComposeResult:
        yield TextLines(id="model-header", wrap=True)
        with VerticalScroll(id="model-scroll"):
            yield TextLines(id="model-heads", wrap=False)  # what the title promises, on the first screen
            yield TextLines(id="model-predict", wrap=True)
        yield TextLines(id="model-legend", wrap=True)
        yield StatusLine(id="status")
        yield KeyBar(keys.bar_label, id="keybar")

    def _key(self, state: State):
        assert state.head is not None  # the screen reads a head's source (show returns without one)
        return (id(state.head.source), state.row, None if self.every_layer else state.head.layer)

    def show(self, state: State) -> None:
        if state is None or not self.is_current:
            return
        self.query_one("#status", StatusLine).show(status_view(state))
        header = self.query_one("#model-header", TextLines)
        if state.head is None:
            header.set_text(Text(mv.NO_HEADS))
            self.query_one("#model-heads", TextLines).set_text(Text(""))
            self.query_one("#model-predict", TextLines).set_text(Text(""))
            return
        header.set_text(Text(mv.header(state, self.every_layer), style="bold"))
        legend = mv.legend(no_colour(self.app), state)
        self.query_one("#model-legend", TextLines).set_text(Text(legend, style="dim"))
        away = pv.edited_away(state)  # a token added or deleted: row t is not the model's position t
        if away:
            self.query_one("#model-heads", TextLines).set_text(Text(""))
            self.query_one("#model-predict", TextLines).set_text(Text(away, style="dim"))  # wrapped
            return
        key = self._key(state)
        if self._done is not None and self._done[0] == key:
            self._draw(state, *self._done[1:])
            return
        self.query_one("#model-heads", TextLines).set_text(Text("reading every head … (keys still work)"))
        self._read(state, key)

    def on_resize(self, event: events.Resize) -> None:
        """A new width: the heads' lines broken again for it (model_view.head_lines), once laid out."""
        self.call_after_refresh(self.show, self.app.state)

    def _draw(self, state: State, tops, predicted) -> None:
        look = palette.shared_look(self, lambda n: palette.shared_styles(self)[n].partial_rich_style)
        heads = self.query_one("#model-heads", TextLines)
        scroll = self.query_one("#model-scroll", VerticalScroll)  # its scrollbar's room kept, shown or not
        width = scroll.size.width - scroll.styles.scrollbar_size_vertical - heads.styles.padding.width
        lines = mv.head_lines(state, tops, look.seq, look.label, width)
        heads.set_text(lines)  # under the header that says what they are
        if isinstance(predicted, str):
            block = Text(predicted, style="dim")
        else:
            assert state.head is not None  # as in show
            block = pv.model_lines(predicted, (state.head.layer, state.head.head))
        self.query_one("#model-predict", TextLines).set_text(block)

    @work(thread=True, exclusive=True, group="model")
    def _read(self, state: State, key) -> None:
        assert state.head is not None  # the screen reads a head's source (show returns without one)
        tops = query_tops(state.head.source, state.row, key[2])
        predicted = pv.predicted(state)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._read_done, key, tops, predicted)

    def _read_done(self, key, tops, predicted) -> None:
        self._done = (key, tops, predicted)
        state = self.app.state
        if state is not None and state.head is not None and self._key(state) == key:
            self._draw(state, tops, predicted)

    def action_layers(self) -> None:
        """`M` here: every head of this layer <-> every head of every layer."""
        self.every_layer = not self.every_layer
        self.show(self.app.state)

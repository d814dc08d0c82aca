"""The heads screen (key `h`): every head of one layer side by side as small pictures of A (as
CircuitsVis's attention_heads draws a layer's heads, or one row of BertViz's model view). Each tile
is the head's A, cell for cell where it fits (else pooled, the tile says how much:
views/heads_layout.py), and its readings (entropy against log₂ t, previous-token, first-token, self,
induction, duplicate-token); `v` sorts by the next column, `V` flips the order, arrows pick a head,
enter opens it on the pipeline; the layer's multi-head combine is checked below. The readings and
pictures are computed once per (source, layer, size) in a thread worker (12 heads of T = 512: one
pass over each head's A), the keys answered meanwhile.

The head picked is the app State's head (heads_nav.HeadRef): `>`/`<`, `}`/`{` and the palette
move it here as on the pipeline, and the layer shown is its layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.worker import get_current_worker

from ...core.heads import combine
from ...core.heads.layer_view import layer_view
from ...core.heads.rollout import WHOLE, rollout_picture
from .. import keys
from ..state import State
from ..views import heads_view as hv
from ..views.heads_layout import Layout, layout
from ..views.status import status_view
from ..widgets.head_tiles import HeadPicked, HeadTiles, TilesResized  # noqa: F401
from ..widgets.key_bar import KeyBar
from ..widgets.status import StatusLine
from ..widgets.text_lines import TextLines
from .state_screen import MODEL_KNOBS, StateScreen

if TYPE_CHECKING:
    from typing import Any

PENDING = object()  # the combine of the layer shown is still being computed
NO_HEADS = (
    "One head here: this screen shows every head of a layer of a multi-head source. "
    "Open induction-demo (o, then pick it; or attn-tui --scenario induction-demo) or a multi-head file."
)


NOT_HERE = {  # what j/k, R and f say on this screen (keys_screens.py, scope "heads")
    "row": "j/k move the query row, which this screen does not show (every head's whole A): "
    "T (the token view) or M (the model view) shows where one query looks",
    "tokens": "R (the rollout of one query) and f (who looks at t) are the token view's keys: T opens it; "
    "the whole model's rollout R is this screen's last tile",
}


class HeadsScreen(StateScreen):
    HELP = (
        "Every head of one layer, side by side: its attention weights A and how far its rows sit below "
        "log₂ t, and which position it reads (the previous token, the first, itself, the tokens after its "
        "earlier copies, the copies); the layer's heads combined by W_O; the last tile, the whole model's "
        "attention rollout R."
    )
    name_for_keys = "heads"
    CSS_PATH = "heads.tcss"
    BINDINGS = keys.bindings("heads")
    AUTO_FOCUS = "#head-tiles"
    # the model's own heads, which W weights; no query row (j/k would move one that nothing here shows)
    knobs_here = (*(k for k in MODEL_KNOBS if k != "knobs.select_row"), "knobs.cycle_weighting")

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.sort, self.descending = "head", False  # the tiles' order (views/heads_view.SORTS)
        self._done: dict = {}  # (id(source), layer, n) -> (source, [HeadView])
        self._combines: dict = {}  # (id(source), layer) -> (source, Combine | None: no W_O)
        self._rollouts: dict = {}  # (id(source), n) -> (source, R pooled to n x n | None: not formed whole)
        self._pending: tuple | None = None  # the key a worker is computing now
        self._stale = False

    def compose(self) -> ComposeResult:
        yield TextLines(id="heads-header", wrap=False)  # fixed heights: a new text never resizes the tiles
        yield HeadTiles(id="head-tiles")
        yield TextLines(id="heads-foot", wrap=True)
        yield StatusLine(id="status")
        yield KeyBar(keys.bar_label, id="keybar")

    def on_tiles_resized(self) -> None:
        self.show(self.app.state)

    def _lay(self, src) -> Layout:
        size = self.query_one(HeadTiles).size
        colour = not self.app.no_color  # half blocks need two colours a cell; shade glyphs without
        n = src.n_heads + 1  # + the rollout tile
        return layout(n, src.T, src.T_k, max(size.width, 20), max(size.height, 8), colour, len(hv.COLUMNS))

    def show(self, state: State) -> None:
        if state is None or not self.is_current:
            return
        self.query_one("#status", StatusLine).show(status_view(state, check=False))  # the header has it
        ref = state.head
        header, foot = self.query_one("#heads-header", TextLines), self.query_one("#heads-foot", TextLines)
        if ref is None:
            header.set_text(Text(NO_HEADS))
            foot.set_text(Text(""))
            self.query_one(HeadTiles).show([], Layout(1, 20, 8, 4, 1))
            return
        lay = self._lay(ref.source)
        key = (id(ref.source), ref.layer, lay.n, state.weighting_shown)
        done = self._done.get(key)
        if done is None or done[0] is not ref.source:
            if self._pending == key:  # its worker is running: a second would compute the same again
                return
            self._pending = key
            header.set_text(Text(f"computing layer {ref.layer}'s {ref.source.n_heads} heads … (keys still work)\n"))
            self._compute(ref.source, ref.layer, lay.n, key, state.weighting_shown)
            return
        self._draw(state, done, lay)

    def _draw(self, state: State, done, lay) -> None:
        src, views = done
        ref = state.head
        assert ref is not None  # drawn for a head's source (show returns without one)
        comb = self._combines.get((id(src), ref.layer), (None, PENDING))[1]
        tiles = hv.tiles(views, self.sort, self.descending, (ref.layer, ref.head), lay)
        rolled = self._rollouts.get((id(src), lay.n), (None, None))[1]
        if rolled is not None or (src.T_k == src.T and src.T > WHOLE):
            tiles.append(hv.rollout_tile(rolled, src.n_layers, (tiles[0].top, tiles[0].side) if tiles else ("", ())))
        self.query_one(HeadTiles).show(tiles, lay)
        head = hv.header(src, ref.layer, self.sort, self.descending, lay, state.weighting_shown)
        header = self.query_one("#heads-header", TextLines)
        header.set_text(Text(f"{head}\n{hv.tokens_line(src, header.content_size.width or None)}"))
        line = "combine: computing …" if comb is PENDING else hv.combine_line(comb, src)
        self.query_one("#heads-foot", TextLines).set_text(Text(f"{line}\n{hv.legend(state.weighting_shown)}"))

    @work(thread=True, exclusive=True, group="heads")
    def _compute(self, src, layer: int, n: int, key, weighting: str = "A") -> None:
        """The layer's tiles, then its combine (drawn as each is ready), off the event loop; a result
        for another source or layer than the State's (the learner moved on) is kept but not drawn."""
        worker = get_current_worker()
        views = layer_view(src, layer, bins=n, weighting=weighting)  # State.weighting: what the pictures pool
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._computed, key, (src, views))
        if (id(src), layer) not in self._combines:
            comb = combine(src, layer)
            if not worker.is_cancelled:
                self.app.call_from_thread(self._combined, (id(src), layer), (src, comb))
        if (id(src), n) not in self._rollouts:  # the whole model's, once per source and size, drawn last
            pic = rollout_picture(src, bins=n)
            if not worker.is_cancelled:
                self.app.call_from_thread(self._rolled, (id(src), n), (src, pic))

    def _computed(self, key, done) -> None:
        self._pending = None if self._pending == key else self._pending
        self._done = {k: v for k, v in self._done.items() if v[0] is done[0]}  # only the current source's
        self._done[key] = done
        self.show(self.app.state)

    def _rolled(self, key, done) -> None:
        self._rollouts = {key: done}  # the current source's, at the size shown
        self.show(self.app.state)

    def _combined(self, key, done) -> None:
        self._combines = {k: v for k, v in self._combines.items() if v[0] is done[0]}
        self._combines[key] = done
        self.show(self.app.state)

    # -- keys (keys_screens.py, scope "heads") ----------------------------------
    def _go(self, layer: int, head: int) -> None:
        ref = self.app.state.head
        if ref is None or (layer, head) == (ref.layer, ref.head) or (layer, head) == hv.ROLLOUT:
            return
        self.app.action_do("heads.show_head", layer, head)  # the action changes the state (actions/heads.py)

    def action_move(self, step: int) -> None:
        """The next / previous tile in the order shown (±1), or a line of tiles down / up."""
        tiles, ref = self.query_one(HeadTiles).tiles, self.app.state.head
        if not tiles or ref is None:
            return
        lay = self.query_one(HeadTiles).lay
        assert lay is not None  # shown with the tiles
        per_row = lay.per_row
        step = step if abs(step) == 1 else (per_row if step > 0 else -per_row)
        at = next((i for i, t in enumerate(tiles) if (t.layer, t.head) == (ref.layer, ref.head)), 0)
        t = tiles[max(0, min(len(tiles) - 1, at + step))]
        self._go(t.layer, t.head)

    def action_sort(self, step: int) -> None:
        """`v`: sort by the next column (head order, H, log₂t, prev, first, self, ind, dup); high first."""
        i = (hv.SORTS.index(self.sort) + step) % len(hv.SORTS)
        self.sort, self.descending = hv.SORTS[i], hv.SORTS[i] != "head"
        self.show(self.app.state)

    def action_flip(self) -> None:
        self.descending = not self.descending
        self.show(self.app.state)

    def action_open(self) -> None:
        if self.app.state.head is not None:
            self.app.switch_mode("pipeline")

    def action_not_here(self, what: str) -> None:
        """j/k, R, f: keys of the screens that show one query; here they say where they work."""
        self.app.notes.note(NOT_HERE[what], "refusal", timeout=4)

    def try_it(self) -> None:
        """The tour's try-it (tour_text: the "heads" page): induction-demo on a repeated sequence,
        layer 1 sorted by the induction score; a source already open is kept."""
        if self.app.state.head is None:
            self.app.action_do("heads.open_tour_demo")  # the action opens it (actions/heads.py)
            self.sort, self.descending = "induction", True
            self.show(self.app.state)

    def on_head_picked(self, message: HeadPicked) -> None:
        self._go(message.layer, message.head)

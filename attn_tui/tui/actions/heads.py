"""Head actions of a multi-head source: go to head L.H by number, and run the built-in model on
the learner's own tokens (every head recomputed; the layer and head shown are kept)."""

from __future__ import annotations

from ..heads_nav import ONE_HEAD, HeadRef, open_ref, parse_head
from ..screens.editor import FormScreen
from ..state import Refused
from ..views.heads_tour import TOUR_TOKENS
from . import commit, refuse


def go_head(app) -> None:
    ref = app.state.head
    if ref is None:
        refuse(app, ONE_HEAD)
        return
    src = ref.source
    title = f"Go to head LAYER.HEAD: layers 0..{src.n_layers - 1}, heads 0..{src.n_heads - 1}"
    app.push_screen(FormScreen(title, [("head", "layer.head", f"{ref.layer}.{ref.head}")], lambda v: _go(app, v)))


def _go(app, values: dict) -> str | None:
    """Show the head typed; the one-line refusal (the form stays) otherwise."""
    try:
        app.set_state(app.state.on_head(parse_head(values["head"], app.state.head)))
    except (ValueError, Refused) as exc:
        return str(exc).splitlines()[0]
    return None


def tokens(app) -> None:
    ref = app.state.head
    if ref is None:
        refuse(app, ONE_HEAD)
        return
    now = " ".join(ref.source.tokens)
    title = "Tokens, separated by spaces: every head runs on them (a built-in model's letters)"
    app.push_screen(FormScreen(title, [("tokens", "tokens", now)], lambda v: apply_tokens(app, v["tokens"])))


def apply_tokens(app, text: str) -> str | None:
    """Every head of the built-in model recomputed on ``text``, the same layer and head shown;
    None when done, else the one line naming the unknown token or the length (nothing changes)."""
    ref = app.state.head
    if ref is None:
        return ONE_HEAD
    try:
        s, new = open_ref(ref.name, text, ref.layer, ref.head)
    except ValueError as exc:
        return "tokens: " + str(exc).splitlines()[0].removeprefix("--tokens: ")  # the form's field, not a flag
    # another sequence: a pin of the old one would compare A of different tokens (fresh drops it)
    return commit(app, s, note=f"every head recomputed on {' '.join(new.source.tokens)!r}", head=new, fresh=True)


def show_head(app, layer: int, head: int) -> None:
    """Head ``layer.head`` of the source shown (the heads screen's tiles, the palette's "go to L.H");
    a refusal said as a warning, the state unchanged."""
    ref = app.state.head
    if ref is None:
        return
    try:
        app.set_state(app.state.on_head(HeadRef(ref.source, layer, head, ref.name, ref.labels)))
    except Refused as exc:
        app.notes.note(str(exc), "refusal", severity="warning", timeout=6)


def next_part(app, step: int = 1) -> None:
    """The head with the next share of the prediction's top logit, in the ranking the token and model
    views list (largest first, round again after the last): the key `n` there."""
    from ..views.prediction_view import prediction_at, why_none

    why = why_none(app.state)
    if why is not None:
        refuse(app, why)
        return
    ranked = [(x.layer, x.head) for x in prediction_at(app.state).heads]
    ref = app.state.head
    now = (ref.layer, ref.head)
    show_head(app, *(ranked[(ranked.index(now) + step) % len(ranked)] if now in ranked else ranked[0]))


def open_tour_demo(app) -> None:
    """The tour's heads page (tour_text "heads"): induction-demo on a repeated sequence, layer 1, on
    its first repeated token; a multi-head source already open is kept."""
    if app.state.head is None:
        s, ref = open_ref("induction-demo", TOUR_TOKENS, layer=1)
        row = (s.focus_row or 1) - 1  # the first repeated token
        app.set_state(app.state.with_(scenario=s, head=ref, row=row, cursor=None).fresh())

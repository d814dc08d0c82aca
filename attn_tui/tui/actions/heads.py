"""Head actions of a multi-head source: go to head L.H by number, and run the built-in model on
the learner's own tokens or text (every head recomputed in a worker, through the source's handle to
its model, core/models; the layer and head shown are kept)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.worker import get_current_worker

from ..heads_nav import ONE_HEAD, HeadRef, first_head, open_ref, parse_head
from ..screens.editor import FormScreen
from ..state import Refused
from ..views.heads_tour import TOUR_TOKENS
from . import commit, refuse

if TYPE_CHECKING:
    from attn_tui.core.models import ModelEntry
    from attn_tui.tui.app_protocol import ExplorerApp


def go_head(app: ExplorerApp) -> None:
    ref = app.state.head
    if ref is None:
        refuse(app, ONE_HEAD)
        return
    src = ref.source
    title = f"Go to head LAYER.HEAD: layers 0..{src.n_layers - 1}, heads 0..{src.n_heads - 1}"
    app.push_screen(FormScreen(title, [("head", "layer.head", f"{ref.layer}.{ref.head}")], lambda v: _go(app, v)))


def _go(app: ExplorerApp, values: dict) -> str | None:
    """Show the head typed; the one-line refusal (the form stays) otherwise."""
    ref = app.state.head
    assert ref is not None  # the form opens on a head (go_head) and holds the keys while open
    try:
        app.set_state(app.state.on_head(parse_head(values["head"], ref)))
    except (ValueError, Refused) as exc:
        return str(exc).splitlines()[0]
    return None


def tokens(app: ExplorerApp) -> None:
    ref = app.state.head
    if ref is None:
        refuse(app, ONE_HEAD)
        return
    entry = cast("ModelEntry | None", ref.source.model)  # a built-in's handle (HeadSource.model)
    if entry is None:  # a file's heads: the refusal the door gives, as the dialog would
        refuse(app, apply_tokens(app, " ".join(ref.source.tokens)))
        return
    field = entry.field
    them = "them" if field == "tokens" else "it"
    most = entry.trained_up_to()  # the longest text it was trained on (text-demo's 256), None if unsaid
    trained = f"; trained on texts of up to {most:,}" if most is not None else ""
    title = f"New {field} ({entry.what}, up to {entry.model().n_ctx:,} tokens{trained}): every head runs on {them}"
    app.push_screen(FormScreen(title, [(field, field, ref.source.text)], lambda v: apply_tokens(app, v[field])))


def apply_tokens(app: ExplorerApp, text: str) -> str | None:
    """Every head of the built-in model recomputed on ``text``, the same layer and head shown. The text
    is read here (its tokens: cheap), the forward runs in a worker and commits when done. None when
    started, else the one line naming what the model cannot read (nothing changes, the dialog stays)."""
    ref = app.state.head
    if ref is None:
        return ONE_HEAD
    entry = cast("ModelEntry | None", ref.source.model)  # a built-in's handle (HeadSource.model)
    try:
        if entry is None:  # a file's heads: the door refuses new tokens (its Q, K, V are fixed)
            open_ref(ref.name, text)
            return ONE_HEAD
        entry.encode(text)
    except ValueError as exc:
        field = "tokens" if entry is None else entry.field
        return f"{field}: {str(exc).splitlines()[0]}"  # the dialog's field, not a flag
    app.run_worker(partial(_run_work, app, ref, text), thread=True, exclusive=True, group="new-tokens")
    return None


def _run_work(app: ExplorerApp, ref: HeadRef, text: str) -> None:
    """In a worker: the model's forward on ``text`` through the source's handle (core/models: its
    ModelEntry) and the head shown, as a new (Scenario, HeadRef)."""
    from ...core.heads.demo import model_source

    try:
        entry = cast("ModelEntry", ref.source.model)  # a built-in's handle: apply_tokens started this
        out: tuple[tuple | None, str | None] = (
            first_head(model_source(entry, text), ref.name, ref.layer, ref.head),
            None,
        )
    except ValueError as exc:
        out = (None, str(exc).splitlines()[0])
    if not get_current_worker().is_cancelled:  # the app is closing, or newer tokens came
        app.call_from_thread(_run_done, app, ref, out)


def _run_done(app: ExplorerApp, ref: HeadRef, out) -> None:
    """On the event loop: commit the new heads on the head shown now (moved meanwhile: that head)."""
    (opened, reason), now = out, app.state.head
    if reason or now is None or now.name != ref.name:  # refused, or another source was opened meanwhile
        refuse(app, reason)
        return
    s, new = opened
    if (now.layer, now.head) != (new.layer, new.head):
        s, new = first_head(new.source, new.name, now.layer, now.head)
    src = new.source
    entry = cast("ModelEntry", src.model)  # a built-in's handle, as on the head the tokens were typed for
    words = " ".join(src.tokens) if entry.field == "tokens" else src.text
    words = words if len(words) <= 60 else words[:59] + "…"
    # another sequence: a pin of the old one would compare A of different tokens (fresh drops it)
    refuse(app, commit(app, s, note=f"every head recomputed on {words!r}", head=new, fresh=True))


def show_head(app: ExplorerApp, layer: int, head: int) -> None:
    """Head ``layer.head`` of the source shown (the heads screen's tiles, the palette's "go to L.H");
    a refusal said as a warning, the state unchanged."""
    ref = app.state.head
    if ref is None:
        return
    try:
        app.set_state(app.state.on_head(HeadRef(ref.source, layer, head, ref.name, ref.labels)))
    except Refused as exc:
        app.notes.note(str(exc), "refusal", severity="warning", timeout=6)


def next_part(app: ExplorerApp, step: int = 1) -> None:
    """The head with the next share of the prediction's top logit, in the ranking the token and model
    views list (largest first, round again after the last): the key `n` there."""
    from ..views.prediction_view import prediction_at, why_none

    why = why_none(app.state)
    if why is not None:
        refuse(app, why)
        return
    p, ref = prediction_at(app.state), app.state.head
    assert p is not None and ref is not None  # why_none said None: a head whose source predicts
    ranked = [(x.layer, x.head) for x in p.heads]
    if not ranked:  # a captured file's top tokens without the heads' parts: why
        refuse(app, p.legend)
        return
    now = (ref.layer, ref.head)
    show_head(app, *(ranked[(ranked.index(now) + step) % len(ranked)] if now in ranked else ranked[0]))


def open_tour_demo(app: ExplorerApp) -> None:
    """The tour's heads page (tour_text "heads"): induction-demo on a repeated sequence, layer 1, on
    its first repeated token; a multi-head source already open is kept."""
    if app.state.head is None:
        s, ref = open_ref("induction-demo", TOUR_TOKENS, layer=1)
        row = (s.focus_row or 1) - 1  # the first repeated token
        app.set_state(app.state.with_(scenario=s, head=ref, row=row, cursor=None).fresh())


def open_tour_text(app: ExplorerApp) -> None:
    """The tour's text page (tour_text "text"): text-demo on its sentence, on its induction head, the
    query where the model reads the repeat (views/text_tour.py: measured); refused in one line when the
    model cannot be loaded."""
    from ..views.text_tour import measured

    try:
        m = measured()
        s, ref = first_head(m.src, "text-demo", m.induction.layer, m.induction.head)
    except ValueError as exc:
        refuse(app, str(exc).splitlines()[0])
        return
    refuse(app, app.set_state(app.state.with_(scenario=s, head=ref, row=m.row, cursor=None).fresh()))

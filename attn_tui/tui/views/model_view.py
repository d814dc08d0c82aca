"""What the model view (screens/model.py) says: one line per head, its five heaviest keys for the
selected query, each with its weight on A's colour and what the key is to the query."""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from ...core.heads.query_top import HeadTop, relation
from ..state import State
from .token_view import beyond_training, who

NO_HEADS = (
    "One head here: the model view shows where a query looks in every head of a multi-head source. "
    "Open induction-demo (o, then pick it; or attn-tui --scenario induction-demo) or a multi-head file."
)
SHADE = "shaded by weight (A's colour scale)"
NO_SHADE = "no colour scale: read the numbers"
LEGEND = (
    f"each head's five heaviest keys, heaviest first, {SHADE} · prev = previous token, self = the query, "
    "first = first token, after copy = the token after an earlier occurrence of the query's token (what an "
    "induction head reads), copy = that occurrence (a duplicate-token head's); a key may be several · "
    "near uniform: the row's H within 5% of log2 of its keys"
)


def legend(glyphs: bool = False, state: State | None = None) -> str:
    """LEGEND, with no word of colour where the terminal shows none (NO_COLOR, 16 colours), after the
    token view's note on a text longer than the model was trained on (a review found it on one view only)."""
    words = LEGEND.replace(SHADE, NO_SHADE) if glyphs else LEGEND
    note = beyond_training(state) if state is not None else None
    return f"{note} · {words}" if note else words


def header(state: State, every_layer: bool) -> str:
    ref, s = state.head, state.scenario
    assert ref is not None  # the model screen's header is of a head (NO_HEADS without one)
    where = "every layer" if every_layer else f"layer {ref.layer}"
    return (
        f"where {who(s.tokens, state.row)} looks, in every head of "
        f"{where} ({ref.source.n_heads} heads a layer; the model's weights: c, the mask and edits do not apply here)"
    )


def head_lines(state: State, tops: list[HeadTop], seq: tuple, label: Style, width: int | None = None) -> Text:
    """One line per head: "L1.H2  t6 r 0.91 prev · …", the current head marked ▶. With ``width`` (the
    pane's cells), a head's keys go on under its name where they do not fit, never cut mid-key (a review
    at 80 columns read "t1 Th" and "after" with the rest of the line gone)."""
    ref, t = state.head, state.row
    assert ref is not None  # the model screen's lines are of a head's source
    src = ref.source
    keys = src.key_tokens or src.tokens
    aligned = src.T_k == src.T
    out = Text()
    for n, ht in enumerate(tops):
        mark = "▶ " if (ht.layer, ht.head) == (ref.layer, ref.head) else "  "
        name = f"{mark}L{ht.layer}.H{ht.head} "
        out.append(name, style=label)
        used = cell_len(name)
        if ht.near_uniform:
            out.append("near uniform ", style="italic")
            used += cell_len("near uniform ")
        for k, (j, w) in enumerate(ht.top):
            cell = f"{who(keys, j)} {w:.2f}"
            why = relation(src.ids, aligned, t, j)
            size = cell_len(cell) + (cell_len(why) + 1 if why else 0)  # a label may be wide (CJK, emoji)
            if k and width is not None and used + 1 + size > width:
                out.append("\n" + " " * cell_len(name))  # on under the head's name
                used = cell_len(name)
            elif k:
                out.append(" ")
                used += 1
            out.append(cell, style=seq[min(len(seq) - 1, int(w * len(seq)))])
            if why:
                out.append(" ")
                out.append(why, style="italic")
            used += size
        if not ht.top:
            out.append("every key masked")
        if n < len(tops) - 1:
            out.append("\n")
    return out

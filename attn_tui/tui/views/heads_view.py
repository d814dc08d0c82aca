"""What the heads screen shows: every head of one layer as a tile (its A, its readings),
in the order of the sorted column, and the layer's multi-head combine. Pure: numbers come from
core.heads (layer_view, combine), the layout from the screen's size.

A tile: A on the left (rows t, keys i; colour, or a glyph under NO_COLOR, by weight; cell for cell
where it fits, else pooled: views/heads_layout.py), the readings
on the right, one a line, each a mean over rows: H (row entropy, bits), log₂t (its ceiling, the mean
over rows of log₂ of the keys each row sees: the uniform row's entropy), prev (A[t, t-1]), first
(A[t, 1]), self (A[t, t]), ind (the weight on the tokens after t's earlier copies), dup (on those
copies); ind and dup over the rows whose token occurred before, "—" when none did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

from ...core.heads import READINGS, sort_readings
from ...core.heads.capture_check import stored_check
from ...core.heads.weighting import WHY
from ...core.labeltext import positioned, repeats
from ...core.numfmt import fit_number
from .heads_layout import axes

# (field, the tile's label, the header's words) read off core.heads.READINGS, in its order; "head" is the natural order.
COLUMNS = tuple((r.field, r.tile, r.words) for r in READINGS)
SORTS = ("head",) + tuple(c[0] for c in COLUMNS)  # what `v` cycles through


@dataclass(frozen=True, eq=False)
class Tile:
    layer: int
    head: int
    title: str
    thumb: object  # (n_r, n_c) pooled A in [0, 1] (core.heads.layer_view.HeadView.thumb)
    lines: tuple  # the readings, one a line (COLUMNS' order)
    hot: int  # the line of the sorted column (-1: sorted by head)
    current: bool  # the head the explorer shows
    top: str = ""  # the key axis' line over the picture ("    t1   t6 …", heads_layout.axes)
    side: tuple = ()  # each picture line's row label ("t1 ")


def reading_lines(r) -> tuple:
    """'H     0.05' ... 'ind   1.00' (None: '—')."""
    out = []
    for field, label, _ in COLUMNS:
        v = getattr(r, field)
        out.append(f"{label:<6}{'—' if v is None else fit_number(v, 4)}")
    return tuple(out)


def sorted_views(views: list, sort: str, descending: bool) -> list:
    """The HeadViews in the order of column ``sort`` (core.heads.sort_readings: nulls last)."""
    if sort == "head":
        return list(views) if not descending else list(reversed(views))
    by = {(v.readings.layer, v.readings.head): v for v in views}
    return [by[(r.layer, r.head)] for r in sort_readings([v.readings for v in views], sort, descending)]


def title(layer: int, head: int, here: bool, view, width: int | None = None) -> str:
    """ "▶ L0.H1", and when the picture is pooled how many tokens a cell holds (rows × keys), in
    the longest form that fits ``width``: "L0.H1 · a cell = 3×3 tokens, ⏎ whole" … "L0.H1 · 3×3"."""
    name = f"{'▶ ' if here else ''}L{layer}.H{head}"
    k_r, k_c = (int(e[1] - e[0]) if len(e) > 1 else 1 for e in (view.row_edges, view.col_edges))
    if k_r == k_c == 1:
        return name
    forms = (f" · a cell = {k_r}×{k_c} tokens, ⏎ whole", f" · a cell = {k_r}×{k_c} tokens", f" · {k_r}×{k_c}")
    return name + next((f for f in forms if width is None or len(name + f) <= width), forms[-1])


def tiles(views: list, sort: str, descending: bool, current: tuple | None, lay=None) -> list[Tile]:
    """The tiles in the order of ``sort``; with a heads_layout.Layout ``lay``, their axes' labels."""
    hot = next((i for i, c in enumerate(COLUMNS) if c[0] == sort), -1)
    top, side = ("", ()) if lay is None or not views else axes(lay, views[0].row_edges, views[0].col_edges)
    out = []
    for v in sorted_views(views, sort, descending):
        r = v.readings
        here = current == (r.layer, r.head)
        named = title(r.layer, r.head, here, v, None if lay is None else lay.tile_w - 5)  # "┌─ " … " ─┐"
        out.append(Tile(r.layer, r.head, named, v.thumb, reading_lines(r), hot, here, top, side))
    return out


ROLLOUT = (-1, -1)  # the rollout tile's (layer, head): no head of the source
ROLLOUT_LINES = ("R = Ã…Ã₀", "Ã = ½Ā+½I", "Ā: mean A", "of a layer", "rows sum 1", "all layers")


ROLLOUT_ROWS = ("T > 512:", "its rows:", "attn-tui", "heads FILE", "--rollout", "--query t")


def rollout_tile(thumb, n_layers: int, labels: tuple = ("", ())) -> Tile:
    """The tile of the whole model's attention rollout R (core/heads/rollout.py), after the heads; with no
    picture (R not formed whole: above 512 tokens) it says where R's rows are. ``labels``: the heads' axes
    (Tile.top, Tile.side), R pooled with the same bins."""
    lines = ROLLOUT_LINES if thumb is not None else ROLLOUT_ROWS
    return Tile(*ROLLOUT, f"rollout L0–L{n_layers - 1}", thumb, lines, -1, False, *labels)


def sort_words(sort: str, descending: bool) -> str:
    if sort == "head":
        return "head order" + (", last first" if descending else "")
    words = next(c[2] for c in COLUMNS if c[0] == sort)
    return f"{words}, {'highest' if descending else 'lowest'} first"


PICTURED = {"A": "A", "value": "value-weighted A (rows sum ≤ 1)", "info": "info-weighted A (rows sum ≤ 1)"}


def header(src, layer: int, sort: str, descending: bool, lay=None, weighting: str = "A") -> str:
    """'sorted by induction score, highest first · layer 0 of 0..1 · 4 heads · T = 20 · A whole, ▀ two
    rows a line' (the pictures' A weighted by the State's ``weighting``, core/heads/weighting.py; the
    readings are A's); pooled: 'A pooled, k×k tokens a cell'. ``lay``: a heads_layout.Layout."""
    pooled = "" if lay is None else f" · {PICTURED[weighting]} {_drawn(src, lay)}"
    return (
        f"sorted by {sort_words(sort, descending)} · layer {layer} of 0..{src.n_layers - 1} · "
        f"{src.n_heads} heads · T = {src.T}{pooled}"
    )


def _drawn(src, lay) -> str:
    k_r, k_c = math.ceil(src.T / lay.n), math.ceil(src.T_k / lay.n)  # core.heads.layer_view.edges
    if max(k_r, k_c) > 1:
        return f"pooled, {k_r}×{k_c} tokens a cell (⏎ opens a head whole)"
    return "whole (▀: two query rows a line)" if lay.half else "whole, one cell per (query, key)"


def tokens_line(src, width: int | None = None) -> str:
    """'tokens: …'; for a captured model's file its check first (core.heads.stored_check), in its
    short form when the long one would not leave the tokens a start within ``width``."""
    sep = "  " if repeats(src.tokens) else " "  # "t1 q  t2 w": positions when a token repeats
    tokens = "tokens: " + sep.join(positioned(src.tokens))
    figure = stored_check(src)
    if figure is not None:
        words = figure.words()
        fits = width is None or len(words) + 3 + 16 <= width  # " · " and the tokens' first words
        tokens = f"{words if fits else figure.short()} · {tokens}"
    return tokens if width is None else _cut(tokens, width)


def _cut(line: str, width: int) -> str:
    """``line`` in ``width`` cells, ended by "…" where it was cut (it ran off the header unmarked)."""
    if cell_len(line) <= width:
        return line
    return set_cell_size(line, max(0, width - 1)).rstrip() + "…"


SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")  # O₁…O₁₂, not O₁…O_12


def combine_line(c, src) -> str:
    """The layer's combine, checked: concat(O_1..O_H) W_O = Σ_h O_h W_O^(h)."""
    if c is None:
        return "combine: this source holds no W_O, so concat(O₁…O_H) W_O cannot be formed"
    verdict = "holds" if c.holds else "DOES NOT HOLD"
    shape = "" if c.output is None else f", {c.output.shape[0]}×{c.output.shape[1]}"
    last = str(src.n_heads).translate(SUBSCRIPT)
    return (
        f"combine concat(O₁…O{last}) W_O = Σ_h O_h W_O^(h){shape}: max |diff| {fit_number(c.max_abs_diff, 7)} "
        f"≤ {fit_number(c.tolerance, 7)} (rounding bound): {verdict}"
    )


LEGEND = (
    "means over rows: H row entropy (bits) · log₂t its ceiling (mean log₂ of keys seen) · prev A[t,t−1] · "
    "first A[t,1] · self A[t,t] · ind: on the tokens after t's earlier copies · dup: on those copies"
)


def legend(weighting: str = "A") -> str:
    """LEGEND, after why the pictures' rows sum to less than 1 when they are weighted (key W)."""
    if weighting == "A":
        return LEGEND
    return f"pictures: {WHY[weighting]} (readings: A's own) · {LEGEND}"

"""What the heads screen shows: every head of one layer as a tile (its A pooled, its readings),
in the order of the sorted column, and the layer's multi-head combine. Pure: numbers come from
core.heads (layer_view, combine), the layout from the screen's size.

A tile: the pooled A on the left (rows t, keys i; ``glyph`` and colour by weight), the readings
on the right, one a line, each a mean over rows: H (row entropy, bits), log₂t (its ceiling, the mean
over rows of log₂ of the keys each row sees: the uniform row's entropy), prev (A[t, t-1]), first
(A[t, 1]), self (A[t, t]), ind (the weight on the tokens after t's earlier copies), dup (on those
copies); ind and dup over the rows whose token occurred before, "—" when none did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.heads import FIELDS, sort_readings
from ...core.heads.capture_check import stored_check
from ...core.heads.weighting import WHY
from ...core.labeltext import positioned, repeats
from ...core.numfmt import fit_number

# (field, the tile's label, the header's words), in the tile's order; "head" is the natural order.
COLUMNS = (
    ("mean_entropy_bits", "H", "mean row entropy H"),
    ("mean_ceiling_bits", "log₂t", "its ceiling log₂ t"),
    ("prev_token", "prev", "previous-token score"),
    ("first_token", "first", "first-token score"),
    ("self", "self", "self score"),
    ("induction", "ind", "induction score"),
    ("duplicate_token", "dup", "duplicate-token score"),
)
SORTS = ("head",) + tuple(c[0] for c in COLUMNS)  # what `v` cycles through
assert set(SORTS[1:]) == set(FIELDS)
READ_W = 10  # "first 0.00": the readings column
MIN_N = 4  # the smallest picture worth drawing (then the tiles scroll)


@dataclass(frozen=True)
class Layout:
    per_row: int  # tiles on a line
    tile_w: int
    tile_h: int
    n: int  # the picture's rows and columns at most (bins of core.heads.layer_view)
    cw: int  # characters per picture column (2 makes the cells square-ish)


def layout(n_heads: int, T: int, width: int, height: int) -> Layout:
    """The tiles' arrangement with the largest picture (n x n, cw characters a column) that shows
    every head at once in ``width`` x ``height``; pictures of MIN_N and a scroll when none does."""
    best = None
    for per_row in range(1, max(1, n_heads) + 1):
        rows = math.ceil(n_heads / per_row)
        tile_w = width // per_row
        n_h = height // rows - 2
        for cw in (2, 1):
            n = min(T, n_h, (tile_w - 4 - READ_W) // cw)
            score = (n * n * cw, cw)
            if n >= MIN_N and (best is None or score > best[0]):
                best = (score, Layout(per_row, tile_w, max(n, len(COLUMNS)) + 2, n, cw))
    if best is not None:
        return best[1]
    per_row = max(1, min(n_heads, width // (MIN_N + 4 + READ_W)))
    n = min(T, MIN_N)
    return Layout(per_row, max(width // per_row, n + 4 + READ_W), max(n, len(COLUMNS)) + 2, n, 1)


@dataclass(frozen=True, eq=False)
class Tile:
    layer: int
    head: int
    title: str
    thumb: object  # (n_r, n_c) pooled A in [0, 1] (core.heads.layer_view.HeadView.thumb)
    lines: tuple  # the readings, one a line (COLUMNS' order)
    hot: int  # the line of the sorted column (-1: sorted by head)
    current: bool  # the head the explorer shows


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


def tiles(views: list, sort: str, descending: bool, current: tuple | None) -> list[Tile]:
    hot = next((i for i, c in enumerate(COLUMNS) if c[0] == sort), -1)
    out = []
    for v in sorted_views(views, sort, descending):
        r = v.readings
        here = current == (r.layer, r.head)
        out.append(
            Tile(r.layer, r.head, f"{'▶ ' if here else ''}L{r.layer}.H{r.head}", v.thumb, reading_lines(r), hot, here)
        )
    return out


ROLLOUT = (-1, -1)  # the rollout tile's (layer, head): no head of the source
ROLLOUT_LINES = ("R = Ã…Ã₀", "Ã = ½Ā+½I", "Ā: mean A", "of a layer", "rows sum 1", "all layers")


ROLLOUT_ROWS = ("T > 512:", "its rows:", "attn-tui", "heads FILE", "--rollout", "--query t")


def rollout_tile(thumb, n_layers: int) -> Tile:
    """The tile of the whole model's attention rollout R (core/heads/rollout.py), after the heads; with no
    picture (R not formed whole: above 512 tokens) it says where R's rows are."""
    lines = ROLLOUT_LINES if thumb is not None else ROLLOUT_ROWS
    return Tile(*ROLLOUT, f"rollout L0–L{n_layers - 1}", thumb, lines, -1, False)


def sort_words(sort: str, descending: bool) -> str:
    if sort == "head":
        return "head order" + (", last first" if descending else "")
    words = next(c[2] for c in COLUMNS if c[0] == sort)
    return f"{words}, {'highest' if descending else 'lowest'} first"


PICTURED = {"A": "A", "value": "value-weighted A (rows sum ≤ 1)", "info": "info-weighted A (rows sum ≤ 1)"}


def header(src, layer: int, sort: str, descending: bool, n: int | None, weighting: str = "A") -> str:
    """'sorted by induction score, highest first · layer 0 of 0..1 · 4 heads · T = 20 · A pooled to 16×16'
    (the pictures' A weighted by the State's ``weighting``, core/heads/weighting.py; the readings are A's)."""
    pooled = "" if n is None else f" · {PICTURED[weighting]} {'as is' if n >= src.T else f'pooled to {n}×{n}'}"
    return (
        f"sorted by {sort_words(sort, descending)} · layer {layer} of 0..{src.n_layers - 1} · "
        f"{src.n_heads} heads · T = {src.T}{pooled}"
    )


def tokens_line(src, width: int | None = None) -> str:
    """'tokens: …'; for a captured model's file its check first (core.heads.stored_check), in its
    short form when the long one would not leave the tokens a start within ``width``."""
    sep = "  " if repeats(src.tokens) else " "  # "t1 q  t2 w": positions when a token repeats
    tokens = "tokens: " + sep.join(positioned(src.tokens))
    figure = stored_check(src)
    if figure is None:
        return tokens
    words = figure.words()
    fits = width is None or len(words) + 3 + 16 <= width  # " · " and the tokens' first words
    return f"{words if fits else figure.short()} · {tokens}"


def combine_line(c, src) -> str:
    """The layer's combine, checked: concat(O_1..O_H) W_O = Σ_h O_h W_O^(h)."""
    if c is None:
        return "combine: this source holds no W_O, so concat(O₁…O_H) W_O cannot be formed"
    verdict = "holds" if c.holds else "DOES NOT HOLD"
    shape = "" if c.output is None else f", {c.output.shape[0]}×{c.output.shape[1]}"
    return (
        f"combine concat(O₁…O_{src.n_heads}) W_O = Σ_h O_h W_O^(h){shape}: max |diff| {fit_number(c.max_abs_diff, 7)} "
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

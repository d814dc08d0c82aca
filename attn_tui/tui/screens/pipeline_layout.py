"""How a row of pipeline panes fits the screen's width (pure arithmetic, no Textual).

A row has up to three panes (e.g. V | S | M). In order of preference:

1. one line at natural width (every column shown), each pane widened for its full title;
2. one line, panes widened only for their short title ("S (5×5)"); spare columns go to full titles;
3. one line with the widest panes shrunk (never below ``least``: labels and a few columns);
   a shrunk grid scrolls horizontally inside its pane;
4. wrapped: the first two panes on one line (fitted as above), the third on a second line
   (A | O, then H; V | S, then M);
5. stacked: one pane per line, each at most the screen's width.

Rows stay in one line as long as possible: a wrapped row costs T+2 lines of height and
the goal at 120×40 is X → Q, K, V and S → A → O on one screen. When the page scrolls anyway
(``whole``: it cannot be on one screen), a wrapped row, else a stacked one, that shows every column
of its grids comes before a line that hides some (at 88×26, a browser's 800×500, A | O | H hid A's
last column; at 60×20 A | O, wrapped, still hid columns: stacked, each shows whole).
A row of fewer than four panes takes the next row's first pane when all of them then show
whole and that row hid columns (join_rows: at 200×60 a captured head's Q | K left 75 columns empty
while S and M, beside V, showed 8 of their 20; a scenario of T = 16 gets W_V | Q | K | V).
"""

from __future__ import annotations

from typing import NamedTuple

MARGIN = 1  # .pane's margin-right (app.tcss)
TITLE_PAD = 2  # a border title is drawn after one rule character and needs one after it


class PaneSize(NamedTuple):
    natural: int  # width that shows every column (labels, cells, scrollbar)
    least: int  # narrowest useful width (labels and a few columns)
    full: int  # width the full title needs
    short: int  # width the short title needs


class RowPlan(NamedTuple):
    mode: str  # "line" | "wrapped" | "stacked"
    widths: tuple  # one width per pane (without the margin)
    full_titles: tuple  # True: the full title fits in that width


def title_width(title: str) -> int:
    return len(title) + TITLE_PAD


def fit_line(sizes: list[PaneSize], avail: int) -> tuple[list[int], list[bool]] | None:
    """Widths for ``sizes`` side by side in ``avail`` columns, or None when they cannot fit."""
    room = avail - MARGIN * len(sizes)
    want = [max(s.natural, s.full) for s in sizes]
    if sum(want) <= room:
        return want, [True] * len(sizes)
    want = [max(s.natural, s.short) for s in sizes]
    if sum(want) <= room:
        spare, full = room - sum(want), []
        for i, s in enumerate(sizes):  # spare columns buy full titles, left to right
            extra = max(0, s.full - want[i])
            full.append(extra <= spare)
            if extra <= spare:
                want[i] += extra
                spare -= extra
        return want, full
    least = [max(min(s.natural, s.least), s.short) for s in sizes]
    if sum(least) > room:
        return None
    # Cap the widest panes at one level L (shrink the widest first), never below least.
    lo, hi = 0, max(want)
    while lo < hi:
        cap = (lo + hi + 1) // 2
        if sum(max(lo_, min(w, cap)) for w, lo_ in zip(want, least)) <= room:
            lo = cap
        else:
            hi = cap - 1
    widths = [max(lo_, min(w, lo)) for w, lo_ in zip(want, least)]
    return widths, [w >= s.full for w, s in zip(widths, sizes)]


def hides(sizes: list[PaneSize], widths) -> bool:
    """True when a pane of these widths is narrower than its natural width (columns scroll)."""
    return any(w < s.natural for w, s in zip(widths, sizes))


def plan_row(sizes: list[PaneSize], avail: int, whole: bool = False) -> RowPlan:
    """The plan for one row of panes in ``avail`` columns (see the module docstring); ``whole``:
    the first of line, wrapped, stacked that hides no column, when one does."""
    plans = []
    line = fit_line(sizes, avail)
    if line is not None:
        plans.append(RowPlan("line", tuple(line[0]), tuple(line[1])))
    if len(sizes) == 3:
        first, second = fit_line(sizes[:2], avail), fit_line(sizes[2:], avail)
        if first is not None and second is not None:
            plans.append(RowPlan("wrapped", tuple(first[0] + second[0]), tuple(first[1] + second[1])))
    widths = [max(1, min(max(s.natural, s.short), avail - MARGIN)) for s in sizes]
    plans.append(RowPlan("stacked", tuple(widths), tuple(w >= s.full for w, s in zip(widths, sizes))))
    if whole:
        return next((p for p in plans if not hides(sizes, p.widths)), plans[0])
    return plans[0]


JOIN_MAX = 4  # panes a joined line may hold (W_V | Q | K | V)


def join_rows(rows: list[list], size, avail: int) -> list[list]:
    """Rows of pane names, a row of fewer than JOIN_MAX taking the next row's first pane when the
    joined row shows every pane whole in ``avail`` columns and the next row, as it was, hid columns
    in one line or did not fit one (``size``: name -> PaneSize). A row it empties stays, empty."""
    rows = [list(r) for r in rows]
    for i in range(len(rows) - 1):
        here, below = rows[i], rows[i + 1]
        if not here or len(here) >= JOIN_MAX or len(below) < 2:
            continue
        line = fit_line([size(n) for n in below], avail)
        joined = [size(n) for n in here + below[:1]]
        natural = sum(s.natural for s in joined) + MARGIN * len(joined)
        if (line is None or hides([size(n) for n in below], line[0])) and natural <= avail:
            here.append(below.pop(0))
    return rows


MAX_EXTRA_CELL = 8  # columns a wide screen may add to each cell (200 columns: the lesson's X row takes 6)


def extra_cell(rows: list[list[tuple[int, int]]], avail: int) -> int:
    """Columns to add to every cell so that the fullest row still fits ``avail``: rows of panes as
    (natural width at the data's cell width, columns); 0 to MAX_EXTRA_CELL."""
    slack = [(avail - sum(w + MARGIN for w, _ in row)) // max(1, sum(c for _, c in row)) for row in rows if row]
    return max(0, min(MAX_EXTRA_CELL, *slack)) if slack else 0


def row_extras(row: list[tuple[int, int]], avail: int) -> list[int]:
    """Columns to add to each cell of each pane of one row (as extra_cell's), so that the row ends as
    near ``avail`` as whole columns allow: extra_cell for every pane, then one more for the panes whose
    columns still fit what is left, last pane first. Each 0 to MAX_EXTRA_CELL."""
    base = extra_cell([row], avail)
    left = avail - sum(w + MARGIN + base * c for w, c in row)
    out = [base] * len(row)
    for i in range(len(row) - 1, -1, -1):
        cols = row[i][1]
        if 0 < base < MAX_EXTRA_CELL and 0 < cols <= left:
            out[i], left = base + 1, left - cols
    return out


def fit_cap(line_heights: list[int], room: int, lo: int, hi: int) -> int | None:
    """The largest grid max-height in [lo, hi] with which lines of these natural heights fit
    in ``room`` lines (a line is as tall as its tallest pane, at most the cap), or None."""
    for cap in range(hi, lo - 1, -1):
        if sum(min(cap, h) for h in line_heights) <= room:
            return cap
    return None


class Sizes(NamedTuple):
    """The sizes app.tcss gives the panes, read from their styles once the CSS is applied
    (before the layout changes any of them), so these five are not copied out of the CSS;
    MARGIN above (.pane's margin-right) still is, and DESIGN_SIZE in pipeline_fit.py is the screen they suit."""

    chart_row_width: int  # chart + its margin + the inspector's min-width + its margin
    chart_width: int  # #chart
    chart_row_height: int  # #chart (and #inspector)
    scrollbar: int  # scrollbar-size-vertical of #pipeline (and of the grids)
    grid_max_height: int  # MatrixGrid's max-height

    @classmethod
    def read(cls, screen) -> Sizes:
        chart, inspector = screen.query_one("#chart").styles, screen.query_one("#inspector").styles
        grid = next(iter(screen.grids.values())).styles
        return cls(
            int(chart.width.value + chart.margin.right + inspector.min_width.value + inspector.margin.right),
            int(chart.width.value),
            int(chart.height.value),
            screen.query_one("#pipeline").styles.scrollbar_size_vertical,
            int(grid.max_height.value),
        )

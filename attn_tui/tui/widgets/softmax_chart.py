"""Softmax chart: the selected row's scores and its softmax, side by side (plotext bars).

Left: the scaled scores c·q_t·k_i/√d_k (row t of S). Right: A_t = softmax(S_t + M_t),
titled with c and H(A_t) in bits against the log₂t ceiling, as in the lesson's animation.
Values are sanitised first: plotext raises on inf/NaN/huge numbers.
"""

from __future__ import annotations

from time import monotonic

import numpy as np
from textual.containers import Horizontal
from textual.geometry import Region
from textual.markup import escape

from .bar_plot import BarPlot

LIMIT = 1e6
TINY = np.finfo(np.float64).tiny  # the smallest normal float64, 2.2e-308


def sanitise(values) -> list[float]:
    """Finite, normal floats only: NaN -> 0, ±inf and huge -> ±LIMIT, subnormal -> 0.

    plotext raises OverflowError on tick labels for a range of subnormal width
    ([1e-310, 0]); a subnormal bar is drawn as no bar, which is what it is at any scale.
    """
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=LIMIT, neginf=-LIMIT)
    v[np.abs(v) < TINY] = 0.0
    return np.clip(v, -LIMIT, LIMIT).tolist()


GHOST = "┃"  # the pinned row's value on each bar's line
MASKED_MARK = " ×"  # a blocked key in the charts: no bar, this after its label


def key_labels(labels, blocked, scores) -> list[str]:
    """Bar labels: "t4 ×" for a masked key, "t1 inf" / "t1 NaN" for a score that is not a number;
    all padded to one width, plus a space before the bar, so they line up on the left."""
    out = []
    for lab, b, x in zip(labels, blocked, np.asarray(scores, dtype=np.float64)):
        mark = MASKED_MARK if b else "" if np.isfinite(x) else " NaN" if np.isnan(x) else (" inf" if x > 0 else " -inf")
        out.append(lab + mark)
    width = max((len(x) for x in out), default=0) + 1  # one space between a label and its bar
    return [x.ljust(width) for x in out]  # plotext right-aligns labels: equal widths line them up


def score_bars(scores, blocked) -> tuple[list[float], int]:
    """Bar lengths for the scores chart and the power of ten they are divided by.

    Masked keys and non-finite scores get no bar (0; their labels say why). When the
    largest remaining |score| is 1e5 or more, or under 1e-3 but not 0, every bar is
    divided by 10^power so the axis stays readable (1e300 -> 1 with "×1e300" in the
    title; a subnormal 4.9e-324 -> 4.9 with "×1e-324")."""
    v = np.asarray(scores, dtype=np.float64).copy()
    v[np.asarray(blocked, dtype=bool) | ~np.isfinite(v)] = 0.0
    big = float(np.max(np.abs(v))) if v.size else 0.0
    power = int(np.floor(np.log10(big))) if big >= 1e5 or 0 < big < 1e-3 else 0
    half = power // 2  # in two steps: 10.0**-324 is 0 and 10.0**324 is inf
    return sanitise(v / 10.0**half / 10.0 ** (power - half)), power


def drawn(values: list[float], axis, cells: int) -> list[float]:
    """``values`` with 0 for each bar that rounds to nothing on an axis of ``cells`` columns.

    plotext draws a bar over the columns from 0's to its value's (x at column round((x − lo)/step),
    step = (hi − lo)/(cells − 1)), so any nonzero value, 4e-18 too, got at least 0's column: a weight
    that is not there looked like one. A value within half a column of 0 now draws nothing; from half
    a column on plotext draws its column. ``axis``: (lo, hi), or None for plotext's fitted axis."""
    lo, hi = axis or (min([0.0, *values]), max([0.0, *values]))
    if cells < 2 or not hi > lo:
        return values
    step = (hi - lo) / (cells - 1)
    zero = round(-lo / step)
    return [0.0 if v and round((v - lo) / step) == zero else v for v in values]


class SoftmaxChart(Horizontal, can_focus=True):
    """Two PlotextPlots; :meth:`show` redraws both from a views.chart.ChartView.

    plotext costs a few ms per chart, so within a burst (changes less than ``BURST`` seconds
    apart: a held `+` repeats 25-40 times a second) redraws are throttled to one per
    ``INTERVAL`` seconds, and the last state of a burst is always drawn. A change that comes
    after a pause (keys pressed one by one) draws at once, in the same frame as the grids:
    deferred to a timer, the chart would lag them and cost a compositor frame of its own.
    """

    INTERVAL = 0.1
    BURST = 0.05

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._pending = None  # the ChartView to draw next
        self._shown = None  # drawn last; redrawn on resize (the bars that fit change)
        self._last = float("-inf")  # when the chart was last drawn
        self._last_show = float("-inf")  # when it was last given a view
        self._timer = None
        self._title_only = False  # a refresh for a new border title (see refresh)

    @property
    def settled(self) -> bool:
        """True when the last view it was given is drawn (no redraw waits for the throttle)."""
        return self._pending is None and self._timer is None

    def compose(self):
        yield BarPlot(id="chart-scores")
        yield BarPlot(id="chart-probs")

    def show(self, view) -> None:
        now = monotonic()
        burst, self._last_show = now - self._last_show < self.BURST, now
        self._pending = view
        if self._timer is not None:  # a burst's draw is due: it draws this view
            return
        wait = self._last + self.INTERVAL - now
        if wait <= 0 or not burst:
            self._draw()
        else:
            self._timer = self.set_timer(wait, self._draw)

    def _draw(self) -> None:
        self._timer = None
        view, self._pending = self._pending, None
        self._shown = view or self._shown
        if view is None:
            return
        self._last = monotonic()
        keys = self._keys(view.weights)
        labels = key_labels([view.keys[i] for i in keys], view.blocked[keys], view.scores[keys])
        scores, power = score_bars(view.scores[keys], view.blocked[keys])
        unit = f" ×1e{power}" if power else ""
        axis = None if power else view.score_axis  # bars divided by 10**power: a fitted axis
        ghost_scores, ghost_power = (
            (None, None)
            if view.ghost_weights is None  # the pin's scores under the pin's own mask
            else score_bars(view.ghost_scores[keys], np.asarray(view.ghost_blocked)[keys])
        )
        ghosts = (
            (None, None)
            if view.ghost_weights is None
            else (
                ghost_scores if ghost_power == power else None,  # the pinned row in the bars' own units
                view.ghost_weights[keys],
            )
        )
        width = self.query_one("#chart-scores").size.width
        forms = (f"{view.scores_title}{unit}  row {view.row}", f"{view.scores_title}{unit}")  # the border names the row
        forms += (f"{view.scores_plain or view.scores_title}{unit}",)
        self._bars("#chart-scores", labels, scores, fitting_title(forms[0], forms[1:], width, labels), axis, ghosts[0])
        probs = fitting_title(view.probs_title, view.probs_shorter, self.query_one("#chart-probs").size.width, labels)
        self._bars("#chart-probs", labels, view.weights[keys], probs, (0, 1), ghosts[1])
        seen = int(np.count_nonzero(~np.asarray(view.blocked)))  # the keys row t may see, not T'
        some = f" · top {min(len(keys), seen)}/{seen}" if len(keys) < len(view.keys) else ""
        title = escape(view.border_title) + some
        if title != self.border_title:
            self._title_only = True  # Textual repaints the whole widget for a new title: its line only
            self.border_title = title
            self._title_only = False

    def refresh(self, *regions, **kw):
        """A new border title repaints the border's line, not the plots under it (they repaint
        their own changed lines); any other refresh is Textual's."""
        if self._title_only and not regions and not kw and self.size.height:
            top = self.content_offset
            return super().refresh(Region(-top.x, -top.y, self.outer_size.width, 1))
        return super().refresh(*regions, **kw)

    def on_resize(self) -> None:
        if self._shown is not None and self._pending is None:
            self._pending = self._shown
            self.call_after_refresh(self._draw)

    def _keys(self, weights) -> np.ndarray:
        """Key indices to draw: all if they fit one bar per line, else the heaviest, in order."""
        room = max(1, self.query_one("#chart-probs").size.height - 2)  # minus title and axis
        n = len(weights)
        if n <= room:
            return np.arange(n)
        w = np.nan_to_num(np.asarray(weights, dtype=np.float64), nan=-1.0)
        return np.sort(np.argsort(-w, kind="stable")[:room])

    def _bars(self, selector: str, labels, values, title: str, ylim, ghost=None) -> None:
        """Horizontal bars of ``values``; ``ghost`` (a pinned row) as a ┃ tick on each bar's line."""
        plot = self.query_one(selector, BarPlot)
        values, ghost = sanitise(values), None if ghost is None else sanitise(ghost)
        values = drawn(values, ylim, plot.size.width - max((len(x) for x in labels), default=0))
        data = (tuple(labels), tuple(values), title, ylim, ghost and tuple(ghost), tuple(plot.size))
        if data == plot.data:  # the same bars: no plotext build, no repaint
            return
        plot.data = data
        plt = plot.plt
        plt.clear_data()
        plt.title(title)
        plt.frame(False)
        # Horizontal bars: one line per key, so a T=5 row fits in a short pane.
        plot.bar_lines, width = BarPlot.thickness(plot.size.height, len(labels))
        plt.bar(labels, values, orientation="horizontal", width=width)
        if ghost is not None:
            plt.scatter(ghost, list(range(1, len(labels) + 1)), marker=GHOST)
        plot.bars = len(labels)
        plt.xlim(*(ylim or (None, None)))  # None: fitted to the bars
        plot.redraw()


def fitting_title(title: str, shorter, width: int, labels) -> str:
    """The first of ``title`` and its ``shorter`` forms (longest first) that plotext draws, else the
    shortest: plotext centres a title on the canvas (the plot less its label column) and leaves it
    out unless it fits with a space either side (at row t9000 "A_t c=1.00 H=12.72/log₂9000=13.14"
    vanished from a 38-column plot; at c = 10.83 the middle forms keep c where the shortest lost it)."""
    canvas = width - max((len(str(x)) for x in labels), default=0) - 2
    forms = (title, *shorter)
    return next((f for f in forms if len(f) + 2 <= canvas), forms[-1])

"""Softmax chart: the selected row's scores and its softmax, side by side (plotext bars).

Left: the scaled scores c·q_t·k_i/√d_k (row t of S). Right: A_t = softmax(S_t + M_t),
titled with c and H(A_t) in bits against the log₂t ceiling, as in the lesson's animation.
Values are sanitised first: plotext raises on inf/NaN/huge numbers.
"""

from __future__ import annotations

from time import monotonic
from typing import TYPE_CHECKING

from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Region

from ..bar_values import sanitise
from .bar_plot import BarPlot

if TYPE_CHECKING:
    from typing import Any

    from textual.geometry import Size
    from textual.timer import Timer

GHOST = "┃"  # the pinned row's value on each bar's line


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
    """Two PlotextPlots; :meth:`show` redraws both from a views.chart.ChartView, drawing what its
    ``bars(room)`` gives for the lines the plots have (the view decides the axes and the keys).

    plotext costs a few ms per chart, so within a burst (changes less than ``BURST`` seconds
    apart: a held `+` repeats 25-40 times a second) redraws are throttled to one per
    ``INTERVAL`` seconds, and the last state of a burst is always drawn. A change that comes
    after a pause (keys pressed one by one) draws at once, in the same frame as the grids:
    deferred to a timer, the chart would lag them and cost a compositor frame of its own.
    """

    INTERVAL = 0.1
    BURST = 0.05

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._pending = None  # the ChartView to draw next
        self._shown = None  # drawn last; redrawn on resize (the bars that fit change)
        self._last = float("-inf")  # when the chart was last drawn
        self._last_show = float("-inf")  # when it was last given a view
        self._timer: Timer | None = None
        self._title_only = False  # a refresh for a new border title (see refresh)
        self._title_quiet = False  # a new border title the render under way draws: no refresh
        self._title_size: Size | None = None  # the size the border title was fitted to
        self._title = ""  # the border title's text: token labels, never parsed as markup
        self._plots_memo: tuple | None = None  # (view, the plots' sizes, _plots of them)

    @property
    def settled(self) -> bool:
        """True when the last view it was given is drawn (no redraw waits for the throttle)."""
        return self._pending is None and self._timer is None

    def compose(self):
        yield BarPlot(id="chart-scores", prepare=self._prepare)
        yield BarPlot(id="chart-probs", prepare=self._prepare)

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
        if view is None or not self.size:  # not laid out yet: the first render fits the title and
            return  # the bars to the sizes it draws (render_lines, _prepare)
        self._last = monotonic()
        plots, title = self._plots(view)
        for selector, bars in plots.items():
            self._bars(selector, *bars)
        self._set_title(title)

    @property
    def title_text(self) -> str:
        """The border title as shown (``border_title`` gives it as markup, brackets escaped)."""
        return self._title

    def _set_title(self, title: str, quiet: bool = False) -> None:
        self._title_size = self.size
        if title != self._title:
            self._title_only, self._title_quiet = True, quiet  # Textual repaints the whole widget: its line only
            # Content, not a str: Textual parses a str title as markup, and markup.escape leaves a label
            # such as "[x=" (no closing bracket) to raise MarkupError in the title of the row it names
            self._title, self.border_title = title, Content(title)
            self._title_only = self._title_quiet = False

    def render_lines(self, crop):
        """The border title fitted to the size drawn at ("· top n/N" counts the bars the plots have
        room for), set quietly: the first frame is drawn before the Resize that redraws the chart,
        and a new size has emptied Textual's line cache, so this render draws the title."""
        if self._shown is not None and self._title_size != self.size:
            self._set_title(self._plots(self._shown)[1], quiet=True)
        return super().render_lines(crop)

    def _plots(self, view) -> tuple[dict, str]:
        """({plot's selector: its _bars arguments}, the border title) of ``view`` at the plots' sizes,
        made once per view and sizes (the first frame asks three times: the title, then each plot)."""
        sizes = tuple(tuple(p.size) for p in self.query(BarPlot))
        memo = self._plots_memo
        if memo is None or memo[0] is not view or memo[1] != sizes:
            memo = self._plots_memo = (view, sizes, self._make_plots(view))
        return memo[2]

    def _make_plots(self, view) -> tuple[dict, str]:
        probs = self.query_one("#chart-probs")
        width = self.query_one("#chart-scores").size.width
        bars = view.bars(max(1, probs.size.height - 2), min(width, probs.size.width))  # one bar a line
        labels = bars.labels
        scores_title = fitting_title(bars.scores_titles[0], bars.scores_titles[1:], width, labels)
        probs_title = fitting_title(bars.probs_titles[0], bars.probs_titles[1:], probs.size.width, labels)
        return {
            "#chart-scores": (labels, bars.scores, scores_title, bars.score_axis, bars.ghost_scores),
            "#chart-probs": (labels, bars.weights, probs_title, bars.probs_axis, bars.ghost_weights),
        }, bars.border_title

    def _prepare(self, plot: BarPlot) -> None:
        """``plot`` is about to be built at a size its bars were not set for (the first frame is drawn
        before the plots' Resize comes): its bars for this size, set without a repaint, so that frame
        is right and the resize's draw finds them the same (no second build)."""
        if self._shown is not None and plot.id:
            self._bars(f"#{plot.id}", *self._plots(self._shown)[0][f"#{plot.id}"], redraw=False)

    def refresh(self, *regions, **kw: Any):
        """A new border title repaints the border's line, not the plots under it (they repaint
        their own changed lines); any other refresh is Textual's."""
        if self._title_quiet:
            return self
        if self._title_only and not regions and not kw and self.size.height:
            top = self.content_offset
            return super().refresh(Region(-top.x, -top.y, self.outer_size.width, 1))
        return super().refresh(*regions, **kw)

    def on_resize(self) -> None:
        if self._shown is not None and self._pending is None:
            self._pending = self._shown
            self.call_after_refresh(self._draw)

    def _bars(self, selector: str, labels, values, title: str, ylim, ghost=None, redraw: bool = True) -> None:
        """Horizontal bars of ``values``; ``ghost`` (a pinned row) as a ┃ tick on each bar's line;
        ``redraw`` False: the plot's data only (it is being built)."""
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
        if redraw:
            plot.redraw()


def fitting_title(title: str, shorter, width: int, labels) -> str:
    """The first of ``title`` and its ``shorter`` forms (longest first) that plotext draws, else the
    shortest: plotext centres a title on the canvas (the plot less its label column) and leaves it
    out unless it fits with a space either side (at row t9000 "A_t c=1.00 H=12.72/log₂9000=13.14"
    vanished from a 38-column plot; at c = 10.83 the middle forms keep c where the shortest lost it)."""
    canvas = width - max((len(str(x)) for x in labels), default=0) - 2
    forms = (title, *shorter)
    return next((f for f in forms if len(f) + 2 <= canvas), forms[-1])

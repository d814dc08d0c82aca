"""The training screen's curves: the loss, and accuracy / row entropy / p(1−p), over steps.

Each draws the logged series it is given (plotext through textual-plotext's ``.plt``);
values are made finite first, since plotext raises on inf/NaN inside render().
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from textual.app import ComposeResult
from textual.containers import Vertical
from textual_plotext import PlotextPlot

if TYPE_CHECKING:
    from typing import Any

FLOOR = 1e-12  # the loss axis is logarithmic: a loss of 0 is drawn at the floor


def log10s(values) -> list[float]:
    """log10 of each value, a value ≤ FLOOR (or not finite) drawn at FLOOR."""
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=FLOOR, posinf=1e6, neginf=FLOOR)
    return np.log10(np.clip(v, FLOOR, 1e6)).tolist()


def finite_list(values, lo: float = -1e6, hi: float = 1e6) -> list[float]:
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=hi, neginf=lo)
    return np.clip(v, lo, hi).tolist()


LOSS_FRAME = 5  # lines of the loss chart that are not the plot: the title, the frame, the x ticks and labels
LOSS_LINES = (10, 26)  # the loss chart's least and most lines


def loss_height(lo: int, hi: int) -> int:
    """Lines the loss chart needs for log10 values lo..hi: two a decade and one, and its frame."""
    return max(LOSS_LINES[0], min(LOSS_LINES[1], 2 * max(1, hi - lo) + 1 + LOSS_FRAME))


def decade_axis(lo: int, hi: int, rows: int) -> tuple[float, list[int]]:
    """(the axis's bottom, the labelled powers of ten) for log10 values lo..hi in ``rows`` lines.
    Each decade gets the same whole number of lines (at least 2), the bottom moved down to make
    it so: every label sits on its own line, and a value between two powers of ten (the target
    0.05) on a line between theirs, not on the line labelled 0.01 (4 lines over 3 decades did)."""
    span = max(1, hi - lo)
    per = (rows - 1) // span
    if per >= 2:
        return hi - (rows - 1) / per, list(range(hi, lo - 1, -1))
    step = max(1, math.ceil((span + 1) / max(1, rows)))  # too few lines: one power of ten per line at most
    return lo, list(range(hi, lo - 1, -step))


class TrainCurves(Vertical):
    """Two plots. show(curves): curves is views.train_view.Curves (steps, series, limits, titles)."""

    HELP = (
        "The loss on a fixed evaluation set (log axis, the target loss as a line), and the accuracy, the mean row "
        "entropy as a share of log₂T' bits and the mean p(1−p) of the weights, the softmax Jacobian's diagonal."
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._curves = None  # the curves last shown: drawn again at the plot's new size

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="train-loss")
        yield PlotextPlot(id="train-rows")

    def on_resize(self) -> None:
        """The loss axis's labels depend on its height (decade_axis): a first show before the
        layout (height 0) labelled one decade only; show again once the plots have their size.
        The curves are read when the call runs, not now: a frame shown meanwhile is the one drawn
        (bound now, a resize during a run drew an older frame over the last one)."""
        if self._curves is not None:
            self.call_after_refresh(self._show_last)

    def _show_last(self) -> None:
        self.show(self._curves)

    def show(self, c) -> None:
        self._curves = c
        loss = self.query_one("#train-loss", PlotextPlot)
        plt = loss.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(c.loss_title)
        lo, hi = math.floor(math.log10(max(FLOOR, c.loss_lo))), math.ceil(math.log10(max(FLOOR, c.loss_hi)))
        if c.steps:  # log10 by hand: plotext 5's own log axis drops the line
            plt.plot(c.steps, log10s(c.loss), marker="hd")
        plt.hline(math.log10(max(FLOOR, c.target)), "red")
        plt.xlim(0, c.max_step)
        height = loss_height(lo, hi)
        if loss.styles.height is None or loss.styles.height.value != height:
            loss.styles.height = height  # on_resize shows the curves again at the new height
        bottom, ticks = decade_axis(lo, hi, loss.size.height - LOSS_FRAME)
        plt.ylim(bottom, hi)
        at: list[float] = list(ticks)  # the same powers, typed as plotext takes them
        plt.yticks(at, [f"{10.0**k:g}" for k in ticks])
        loss.refresh()
        rows = self.query_one("#train-rows", PlotextPlot)
        plt = rows.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(c.rows_title)
        if c.steps:  # each series drawn with its letter (the title names them): no legend over the data
            for values, letter in ((c.accuracy, "a"), (c.entropy_share, "H"), (c.p1p_share, "p")):
                plt.plot(c.steps, finite_list(values, 0, 1), marker=letter)
        plt.xlim(0, c.max_step)
        plt.ylim(0, 1)
        rows.refresh()

"""Panels of the experiments screen; each draws the results it is given.

VarianceTable: Var(q·k) and Var(q·k)/d_k per d_k. DotHistogram: q·k unscaled vs
scaled, as two histograms on one x range. saturation_text: one row at d_k = 512
unscaled vs scaled. SweepCharts: one frame of the scale sweep, two bar charts.
"""

from __future__ import annotations

import math

import numpy as np
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static
from textual_plotext import PlotextPlot

from ..fmt import finite, fmt


def variance_table(rows) -> Table:
    """rows: [{d_k, var, ratio}] from core.experiments.variance."""
    t = Table(box=None, pad_edge=False, padding=(0, 2), header_style="bold")
    for h in ("d_k", "Var(q·k)", "Var(q·k)/d_k", "sd of q·k/√d_k"):
        t.add_column(h, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(str(r["d_k"]), fmt(r["var"]), fmt(r["ratio"]), fmt(math.sqrt(r["ratio"])))
    return t


class DotHistogram(PlotextPlot):
    """Histogram of q·k (unscaled) and q·k/√d_k (scaled) over the same x range."""

    HELP = "Raw dot products spread as √d_k; divided by √d_k they stay at unit variance."

    def show(self, dots, d_k: int, bins: int = 40) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        dots = finite(dots)
        if dots.size:
            scaled = dots / math.sqrt(d_k)
            plt.hist(list(dots), bins, label="q·k")
            plt.hist(list(scaled), bins, label="q·k/√d_k")
            lim = float(np.max(np.abs(dots))) or 1.0
            plt.xlim(-lim, lim)
        plt.title(f"d_k = {d_k}: q·k (sd √d_k = {math.sqrt(d_k):.1f}) vs q·k/√d_k (sd 1)")
        self.refresh()


def saturation_text(res) -> Table:
    """res: core.experiments.saturation() -> {unscaled, scaled, log2_T}."""
    t = Table(box=None, pad_edge=False, padding=(0, 2), header_style="bold")
    for h in ("row 1", "max A", "H(A) bits", f"of log₂8 = {res['log2_T']:g}"):
        t.add_column(h, justify="right", no_wrap=True)
    for name in ("unscaled", "scaled"):
        r = res[name]
        share = r["H"] / res["log2_T"] if res["log2_T"] else float("nan")
        t.add_row(name, fmt(r["max"]), fmt(r["H"]), f"{100 * share:.0f} %")
    return t


def saturation_words(res) -> Text:
    u, s = res["unscaled"], res["scaled"]
    return Text(f"Unscaled the row is a hard selector (max {fmt(u['max'])}, {fmt(u['H'])} bits); "
                f"scaled it spreads ({fmt(s['H'], 2)} of {res['log2_T']:g} bits) and can blend values.",
                style="italic")


class SweepCharts(Horizontal):
    """The lesson's animation frame: scores c·s (y -3..6) and softmax(c·s) (y 0..1)."""

    HELP = "The scale is an entropy knob: as c grows the scores stretch and the row sharpens to one-hot."

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="sweep-scores")
        yield PlotextPlot(id="sweep-row")

    def show(self, frame, labels, uniform_bits: float) -> None:
        left = self.query_one("#sweep-scores", PlotextPlot)
        right = self.query_one("#sweep-row", PlotextPlot)
        for plot, values, lim, title in (
            (left, frame["scores"], (-3, 6), f"scores c·q·k/√d_k, c = {frame['c']:.2f}"),
            (right, frame["row"], (0, 1), f"softmax: H = {frame['H']:.2f} bits (uniform {uniform_bits:.2f})"),
        ):
            plt = plot.plt
            plt.clear_data()
            plt.clear_figure()
            plt.bar(list(labels), list(np.clip(finite(values), *lim)), width=0.5)
            plt.ylim(*lim)
            plt.title(title)
            plot.refresh()


class StatusLine(Static):
    """A one-line status (progress words, the sweep's frame counter)."""

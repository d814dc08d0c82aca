"""Panels of the experiments screen; each draws the results it is given.

VarianceTable: Var(q·k) and Var(q·k)/d_k per d_k (and what the lesson printed).
DotHistogram: q·k unscaled vs scaled, as two densities on one x axis. saturation_text:
one row at d_k = 512 unscaled vs scaled. SweepCharts: one frame of the scale sweep, two bar charts.
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


def variance_table(rows, printed=None) -> Table:
    """rows: [{d_k, var, ratio}] from core.experiments.variance; printed: {d_k: (var, ratio)}, the lesson's."""
    t = Table(box=None, pad_edge=False, padding=(0, 2), header_style="bold")
    heads = ["d_k", "Var(q·k)", "Var(q·k)\n/ d_k", "sd of\nq·k/√d_k"]
    if printed is not None:
        heads.append("the lesson\nprinted\nVar/d_k")
    for h in heads:
        t.add_column(h, justify="right", no_wrap=True)
    for r in rows:
        cells = [str(r["d_k"]), fmt(r["var"]), fmt(r["ratio"]), fmt(math.sqrt(r["ratio"]))]
        if printed is not None:
            cells.append(fmt(printed[r["d_k"]][1]) if r["d_k"] in printed else "—")
        t.add_row(*cells)
    return t


def densities(dots, d_k: int, bins: int = 40, sds: float = 4.0):
    """q·k and q·k/√d_k as densities, each on its own bins over ±sds standard deviations.

    Returns (x_raw, y_raw, x_scaled, y_scaled, peak ratio). A density has area 1 whatever
    the bins, so q·k/√d_k (sd 1) stands √d_k times taller than q·k (sd √d_k).
    """
    dots = np.asarray(dots, dtype=np.float64)
    out = []
    for x, lim in ((dots, sds * math.sqrt(d_k)), (dots / math.sqrt(d_k), sds)):
        counts, edges = np.histogram(x, bins, range=(-lim, lim))
        out += [(edges[:-1] + edges[1:]) / 2, counts / (x.size * (edges[1] - edges[0]))]
    ratio = float(out[3].max() / out[1].max()) if out[1].max() > 0 else float("nan")
    return (*out, ratio)


class DotHistogram(PlotextPlot):
    """Densities of q·k (unscaled) and q·k/√d_k (scaled) on one x axis: areas equal, so heights compare."""

    HELP = (
        "Raw dot products spread as √d_k; divided by √d_k they stay at unit variance. Both are drawn as "
        "densities (area 1), so the scaled one stands √d_k times taller."
    )

    def show(self, dots, d_k: int, bins: int = 40) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        dots = finite(dots)
        sd = math.sqrt(d_k)
        title = f"d_k = {d_k}: densities of q·k (sd {sd:.1f}) and q·k/√d_k (sd 1)"
        if dots.size:
            x1, y1, x2, y2, ratio = densities(dots, d_k, bins)
            plt.bar(list(x1), list(y1), label="q·k", width=1)
            plt.bar(list(x2), list(y2), label="q·k/√d_k", width=1)
            plt.xlim(-4 * sd, 4 * sd)
            plt.xticks([k * sd for k in (-4, -2, 0, 2, 4)], [f"{k * sd:.3g}" for k in (-4, -2, 0, 2, 4)])
            title = f"density, d_k = {d_k}: q·k/√d_k {ratio:.1f}× taller (√d_k = {sd:.1f})"
        plt.title(title)
        self.refresh()


def saturation_text(res, printed=None) -> Table:
    """res: core.experiments.saturation() -> {unscaled, scaled, log2_T}; printed: the lesson's (max, H) rows."""
    t = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for h in ("row 1", "max A", "H(A) bits", f"of log₂8 = {res['log2_T']:g}"):
        t.add_column(h, justify="right" if h != "row 1" else "left", no_wrap=True)
    for name in ("unscaled", "scaled"):
        r = res[name]
        share = r["H"] / res["log2_T"] if res["log2_T"] else float("nan")
        t.add_row(name, fmt(r["max"]), fmt(r["H"]), f"{100 * share:.0f} %")
        if printed and name in printed:
            mx, h = printed[name]
            t.add_row(" the lesson printed", fmt(mx), fmt(h), f"{100 * h / res['log2_T']:.0f} %")
    return t


def saturation_words(res) -> Text:
    u, s = res["unscaled"], res["scaled"]
    return Text(
        f"Unscaled the row is a hard selector (max {fmt(u['max'])}, {fmt(u['H'])} bits); "
        f"scaled it spreads ({fmt(s['H'], 2)} of {res['log2_T']:g} bits) and can blend values.",
        style="italic",
    )


class SweepCharts(Horizontal):
    """The lesson's animation frame: scores c·s (the lesson's y -3..6, widened to fit) and softmax(c·s) (y 0..1)."""

    HELP = (
        "The scale is an entropy knob: as c grows the scores stretch and the row sharpens toward its largest "
        "score (one-hot here: this row has no tie)."
    )

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="sweep-scores")
        yield PlotextPlot(id="sweep-row")

    def show(self, frame, labels, uniform_bits: float, ylim=(-3, 6)) -> None:
        """ylim: the scores' y range for the whole sweep (core.experiments.sweep_ylim: no bar clipped)."""
        left = self.query_one("#sweep-scores", PlotextPlot)
        right = self.query_one("#sweep-row", PlotextPlot)
        widened = "" if tuple(ylim) == (-3, 6) else f" · y {ylim[0]:g}…{ylim[1]:g}, widened"
        for plot, values, lim, title in (
            (left, frame["scores"], tuple(ylim), f"scores c·q·k/√d_k, c = {frame['c']:.2f}{widened}"),
            (right, frame["row"], (0, 1), f"softmax: H = {frame['H']:.2f} bits (uniform {uniform_bits:.2f})"),
        ):
            plt = plot.plt
            plt.clear_data()
            plt.clear_figure()
            plt.bar(list(labels), list(np.clip(finite(values), *lim)), width=0.5)
            plt.ylim(*lim)
            plt.title(title)
            plot.refresh()


class ProgressLine(Static):
    """A one-line status (progress words, the sweep's frame counter)."""

"""Panels for the lenses screen: each shows one lens of the state it is given.

``LensPanel`` is a Static drawn by a pure builder from ``lens_text``;
``RankPanel`` adds the singular values of S as a plotext bar chart.
``follow_state`` lets a screen redraw whenever the app's state changes.
"""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static
from textual_plotext import PlotextPlot

from ...core import lenses
from . import lens_text
from .lens_fmt import finite


class LensPanel(Static):
    """One lens, titled, redrawn by ``builder(state)`` on ``show(state)``.

    HELP says what it shows, in the lesson's words (read by the help screen).
    """

    def __init__(self, builder: Callable, title: str, help: str = "", **kw) -> None:
        super().__init__(**kw)
        self.builder, self.border_title, self.HELP = builder, title, help

    def show(self, state) -> None:
        self.shown = self.builder(state)  # kept so tests can read what is on screen
        self.update(self.shown)


class RankPanel(Vertical):
    """rank S, Q, K and d_k as text, the singular values of S as bars."""

    HELP = "S = QKᵀ is a bilinear form: rank S ≤ min(rank Q, rank K) ≤ d_k however long the sequence."

    def compose(self) -> ComposeResult:
        yield Static(id="rank-text")
        yield PlotextPlot(id="rank-plot")

    def show(self, state) -> None:
        self.shown = lens_text.rank(state)
        self.query_one("#rank-text", Static).update(self.shown)
        tr = state.trace
        sv = finite(lenses.rank_info(tr.S, tr.Q, tr.K)["singular_values"])
        plot = self.query_one("#rank-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        labels = [f"σ{j + 1}" for j in range(len(sv))]
        if len(sv):
            plt.bar(labels, list(sv), width=0.5)
            plt.ylim(0, max(1.0, float(sv.max())) * 1.05)
        plt.title("singular values of S")
        plot.refresh()


def follow_state(screen) -> None:
    """Redraw ``screen`` (its ``show_state``) whenever the reactive ``app.state`` changes.

    ``show_state`` returns at once while the screen is not shown; it redraws on resume.
    """
    screen.watch(screen.app, "state", lambda _s: screen.show_state(), init=False)

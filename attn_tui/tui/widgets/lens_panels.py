"""Panels for the lenses and tour screens: each draws the lens it is given (views.lenses).

``LensPanel`` is a Static showing one Rich renderable; ``RankPanel`` adds the singular
values of S as a plotext bar chart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static
from textual_plotext import PlotextPlot

from ..bar_values import score_bars
from ..fmt import finite

if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType


def with_help(help: str | None, renderable):
    """The panel's HELP sentence (what it shows, in the lesson's words) above what it shows."""
    return Group(Text(help, style="italic"), renderable) if help else renderable


class LensPanel(Static):
    """One lens, titled; :meth:`show` draws the renderable a view built.

    HELP says what it shows, in the lesson's words (read by the help screen).
    """

    def __init__(self, title: str, help: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self.border_title = title
        self.HELP = help  # type: ignore[misc]  # each panel its own help (Textual's HELP is a class variable)

    def show(self, renderable) -> None:
        self.update(with_help(self.HELP, renderable))


class RankPanel(Vertical):
    """rank S, Q, K and d_k as text, the singular values of S as bars."""

    HELP = "S = QKᵀ is a bilinear form: rank S ≤ min(rank Q, rank K) ≤ d_k however long the sequence."

    def compose(self) -> ComposeResult:
        yield Static(id="rank-text")
        yield PlotextPlot(id="rank-plot")

    def show(self, text: RenderableType, singular_values) -> None:
        self.query_one("#rank-text", Static).update(with_help(self.HELP, text))
        sv = finite(singular_values)
        scaled, power = score_bars(sv, np.zeros(len(sv), dtype=bool))  # plotext overflows on 1e308
        sv = np.asarray(scaled)
        plot = self.query_one("#rank-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        labels = [f"σ{j + 1}" for j in range(len(sv))]
        if len(sv):
            plt.bar(labels, list(sv), width=0.5)
            plt.ylim(0, max(1.0, float(sv.max())) * 1.05)
        plt.title("singular values of S" + (f" ×1e{power}" if power else ""))
        plot.refresh()

"""Softmax chart: the selected row's scores and its softmax, side by side (plotext bars).

Left: the scaled scores c·q_t·k_i/√d_k (row t of S). Right: A_t = softmax(S_t + M_t),
titled with c and H(A_t) in bits against the log₂t ceiling, as in the lesson's animation.
Values are sanitised first: plotext raises on inf/NaN/huge numbers.
"""

from __future__ import annotations

import re
from time import monotonic

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.containers import Horizontal
from textual.markup import escape
from textual.strip import Strip
from textual_plotext import PlotextPlot

from ..state import State

LIMIT = 1e6
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BARS = re.compile(r"([█▉▊▋▌▍▎▏▐▄▀▗▖▝▘▙▟▛▜]+)")
BAR_STYLE = Style(color="#35b779")  # viridis green
TEXT_STYLE = Style(color="#c8c8c8")
PAD_STYLE = Style(color="#c8c8c7")  # leading spaces as their own segment (see palette.HEADER)


class BarPlot(PlotextPlot):
    """A PlotextPlot drawn with the Line API: plotext builds plain text (theme "clear"),
    and each line becomes one Strip (bars in BAR_STYLE). Rich's ANSI decoding of a
    coloured build costs more than the build itself."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._lines: list[Strip] | None = None

    def redraw(self) -> None:
        self._lines = None
        self.refresh()

    def _build(self) -> list[Strip]:
        w, h = self.size.width, self.size.height
        plot = self.plt
        plot.plotsize(w, h)
        plot._set_size(w, h)
        plot.theme("clear")
        lines = ANSI.sub("", plot.build()).split("\n")
        self._base = self.rich_style  # once per build: rich_style walks the DOM
        strips = []
        for line in lines[:h]:
            body = line.lstrip(" ")
            segs = [Segment(" " * (len(line) - len(body)), PAD_STYLE)]
            segs += [Segment(part, BAR_STYLE if i % 2 else TEXT_STYLE)
                     for i, part in enumerate(BARS.split(body)) if part]
            strips.append(Strip(segs).crop(0, w))
        return strips

    def render_line(self, y: int) -> Strip:
        if self._lines is None:
            self._lines = self._build()
        line = self._lines[y] if y < len(self._lines) else Strip.blank(0)
        return line.extend_cell_length(self.size.width, self._base)

    def on_resize(self) -> None:
        self._lines = None


def sanitise(values) -> list[float]:
    """Finite floats only: NaN -> 0, ±inf and huge -> ±LIMIT."""
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=LIMIT, neginf=-LIMIT)
    return np.clip(v, -LIMIT, LIMIT).tolist()


def _short(label: str) -> str:
    return label.split()[0] if label.split() else label


class SoftmaxChart(Horizontal, can_focus=True):
    """Two PlotextPlots; :meth:`show` redraws both from a State.

    plotext costs a few ms per chart, so redraws are throttled to one per ``INTERVAL``
    seconds: a lone change draws at once, a burst (a held `+`) draws at most 1/INTERVAL
    times a second, and the last state of a burst is always drawn.
    """

    INTERVAL = 0.1

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._pending: State | None = None
        self._shown: State | None = None  # drawn last; redrawn on resize (the bars that fit change)
        self._last = float("-inf")
        self._timer = None

    def compose(self):
        yield BarPlot(id="chart-scores")
        yield BarPlot(id="chart-probs")

    def show(self, state: State) -> None:
        self._pending = state
        if self._timer is not None:
            return
        wait = self._last + self.INTERVAL - monotonic()
        if wait <= 0:
            self._draw()
        else:
            self._timer = self.set_timer(wait, self._draw)

    def _draw(self) -> None:
        self._timer = None
        state, self._pending = self._pending, None
        self._shown = state or self._shown
        if state is None:
            return
        self._last = monotonic()
        s, tr, t = state.scenario, state.trace, state.row
        keys = self._keys(tr.A[t])
        labels = [_short(s.keys[i]) for i in keys]
        n_open = int((~tr.blocked[t]).sum())
        ceiling = float(np.log2(n_open)) if n_open else float("nan")
        h = float(tr.H[t])
        scale = "c·q·k/√d_k" if s.scaled else "c·q·k"
        some = f" (top {len(keys)} of {len(s.keys)} keys)" if len(keys) < len(s.keys) else ""
        self._bars("#chart-scores", labels, tr.S[t, keys], f"{scale}  row {_short(s.tokens[t])}", None)
        htxt = "NaN" if np.isnan(h) else f"{h:.2f}"
        self._bars("#chart-probs", labels, tr.A[t, keys], f"A_t c={s.c:.2f} H={htxt}/log₂{n_open}={ceiling:.2f}", (0, 1))
        self.border_title = (f"softmax of row {escape(s.tokens[t])}: c={s.c:.3f}, H(A_t)={htxt} bits "
                             f"vs log₂{n_open}={ceiling:.2f}{some}")

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

    def _bars(self, selector: str, labels, values, title: str, ylim) -> None:
        plot = self.query_one(selector, BarPlot)
        plt = plot.plt
        plt.clear_data()
        plt.title(title)
        plt.frame(False)
        # Horizontal bars: one line per key, so a T=5 row fits in a short pane.
        plt.bar(labels, sanitise(values), orientation="horizontal", width=0.3)
        if ylim:
            plt.xlim(*ylim)
        plot.redraw()

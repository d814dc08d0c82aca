"""Softmax chart: the selected row's scores and its softmax, side by side (plotext bars).

Left: the scaled scores c·q_t·k_i/√d_k (row t of S). Right: A_t = softmax(S_t + M_t),
titled with c and H(A_t) in bits against the log₂t ceiling, as in the lesson's animation.
Values are sanitised first: plotext raises on inf/NaN/huge numbers.
"""

from __future__ import annotations

from time import monotonic

import numpy as np
from textual.containers import Horizontal
from textual_plotext import PlotextPlot

from ..state import State

LIMIT = 1e6


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
        self._last = float("-inf")
        self._timer = None

    def compose(self):
        yield PlotextPlot(id="chart-scores")
        yield PlotextPlot(id="chart-probs")

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
        if state is None:
            return
        self._last = monotonic()
        s, tr, t = state.scenario, state.trace, state.row
        labels = [_short(k) for k in s.keys]
        n_open = int((~tr.blocked[t]).sum())
        ceiling = float(np.log2(n_open)) if n_open else float("nan")
        h = float(tr.H[t])
        scale = "c·q·k/√d_k" if s.scaled else "c·q·k"
        self._bars("#chart-scores", labels, tr.S[t], f"{scale}  row {_short(s.tokens[t])}", None)
        htxt = "NaN" if np.isnan(h) else f"{h:.2f}"
        self._bars("#chart-probs", labels, tr.A[t], f"A_t c={s.c:.2f} H={htxt}/log₂{n_open}={ceiling:.2f}", (0, 1))
        self.border_title = (f"softmax of row {s.tokens[t]}: c={s.c:.3f}, H(A_t)={htxt} bits "
                             f"vs log₂{n_open}={ceiling:.2f}")

    def _bars(self, selector: str, labels, values, title: str, ylim) -> None:
        plot = self.query_one(selector, PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.title(title)
        plt.frame(False)
        # Horizontal bars: one line per key, so a T=5 row fits in a short pane.
        plt.bar(labels, sanitise(values), orientation="horizontal", width=0.3)
        if ylim:
            plt.xlim(*ylim)
        plot.refresh()

"""BarPlot: a textual-plotext plot drawn with the Line API (bars in one style, text in another).

plotext builds plain text (theme "clear"); each line becomes one Strip. Rich's ANSI
decoding of a coloured build costs more than the build itself. The two styles are the
component classes ``bar-plot--bar`` and ``bar-plot--text`` (app.tcss), so a theme restyles them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from textual.geometry import Region
from textual.strip import Strip
from textual_plotext import PlotextPlot

from ..framework import set_plot_size

if TYPE_CHECKING:
    from typing import Any

ANSI = re.compile(r"\x1b\[[0-9;]*m")
BARS = re.compile(r"([█▆▉▊▋▌▍▎▏▐▄▀▗▖▝▘▙▟▛▜]+)")
GAP = "▆"  # a full block lowered by a quarter: the line above it shows through as a gap


NEG_ZERO = re.compile(r"(?<![\w.])-(0(?:\.0*)?)(?![\w.])")  # a tick label "-0.0": a tick just below 0


def plot_lines(plot, width: int, height: int) -> list[str]:
    """The plain text lines of a plotext figure built at ``width``×``height`` (theme "clear").
    plotext rounds a tick a hair below 0 to "-0.0": the axis line (the last one drawn) says "0.0"."""
    set_plot_size(plot, width, height)
    plot.theme("clear")
    lines = ANSI.sub("", plot.build()).split("\n")
    axis = max((i for i, line in enumerate(lines) if line.strip()), default=None)
    if axis is not None:
        lines[axis] = NEG_ZERO.sub(r" \1", lines[axis])
    return lines


def separate(lines: list[str]) -> list[str]:
    """Keep bars of different keys apart: plotext fills every line of a bar, so a bar directly
    under another (t2, t3, t4 at 0.043 over t1's 0.870) merged into one block, an 'L' read as one
    tall bar. A bar line under another key's bar line is drawn a quarter lower (GAP). A line
    belongs to the key whose label line (text in the first column) is nearest, the lower on a tie
    (plotext draws a bar of two lines on its label line and the one above)."""
    labels = [i for i, line in enumerate(lines) if i and line[:1].strip()]
    if not labels:
        return lines

    def owner(i: int) -> int:
        return min(labels, key=lambda j: (abs(i - j), j < i))

    out = list(lines)
    for i in range(1, len(lines)):
        if "█" in lines[i] and BARS.search(lines[i - 1]) and owner(i) != owner(i - 1):
            out[i] = lines[i].replace("█", GAP)
    return out


MAX_BAR_LINES = 6  # lines a bar may take on a tall chart


class BarPlot(PlotextPlot):
    """A PlotextPlot drawn with the Line API: plotext builds plain text (theme "clear"),
    and each line becomes one Strip (bars in ``bar-plot--bar``, the rest in ``bar-plot--text``).
    Rich's ANSI decoding of a coloured build costs more than the build itself."""

    # --pad: the leading spaces, one shade off the text so the segments never merge (see
    # matrix-grid--header).
    COMPONENT_CLASSES: ClassVar[set[str]] = {"bar-plot--bar", "bar-plot--text", "bar-plot--pad"}

    def __init__(self, prepare: Callable[[BarPlot], None] | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self._prepare = prepare  # sets the plot's data for its size when a build finds it set for another
        self._lines: list[Strip] | None = None
        self._looks: tuple | None = None  # (ground, bar, text, pad) Styles, read once per CSS change
        self._built: dict = {}  # (line text, width) -> its Strip, from the last build

    def redraw(self) -> None:
        """Build the figure now and repaint only the lines that changed (a new title, the bars
        that moved), not the whole plot; before the first layout, build at the first draw."""
        old = self._lines
        if old is None or not self.size.height:
            self._lines = None
            self.refresh()
            return
        self._lines = new = self._build()
        for y in range(self.size.height):
            if (old[y] if y < len(old) else None) != (new[y] if y < len(new) else None):
                self.refresh(Region(0, y, self.size.width, 1))

    data: tuple | None = None  # what the plot was last built from (SoftmaxChart skips a build of the same)
    bars = 0  # bars in the plot (set with the data): bar_lines lines each, the rest stays blank
    bar_lines = 1  # lines per bar (a tall plot draws thicker bars; see thickness())

    @staticmethod
    def thickness(height: int, bars: int) -> tuple[int, float]:
        """(lines per bar, plotext's bar width) for ``bars`` horizontal bars in ``height`` lines
        (a title and an axis line besides): up to MAX_BAR_LINES a bar when there is room (capped at 3,
        a 200×60 screen left the chart's lower ten lines blank); a bar fills (k − 1)/k of its lines."""
        k = max(1, min(MAX_BAR_LINES, (height - 2) // max(1, bars)))
        return k, 0.3 if k == 1 else (k - 1) / k

    def _build(self) -> list[Strip]:
        w, h = self.size.width, self.size.height
        if self._prepare is not None and (self.data is None or self.data[-1] != (w, h)):
            self._prepare(self)  # its bars for this size (SoftmaxChart): the first frame draws them right
        # plotext spreads n bars unevenly over other heights: give it title + k·n + axis.
        lines = separate(plot_lines(self.plt, w, min(h, self.bars * self.bar_lines + 2) if self.bars else h)[:h])
        if self._looks is None:  # once per CSS or theme change: rich_style walks the DOM
            parts = (self.get_component_rich_style(f"bar-plot--{n}", partial=True) for n in ("bar", "text", "pad"))
            self._looks, self._built = (self.rich_style, *parts), {}
        self._base, bar, text, pad = self._looks
        built, self._built = self._built, {}
        strips = []
        for line in lines:
            strip = built.get((line, w))  # a line that did not change keeps its Strip
            if strip is None:
                body = line.lstrip(" ")
                segs = [Segment(" " * (len(line) - len(body)), pad)]
                segs += [Segment(part, bar if i % 2 else text) for i, part in enumerate(BARS.split(body)) if part]
                strip = Strip(segs).crop(0, w).apply_style(self._base)  # on the widget's ground
            self._built[(line, w)] = strip
            strips.append(strip)
        return strips

    def render_line(self, y: int) -> Strip:
        if self._lines is None:
            self._lines = self._build()
        if y >= len(self._lines):  # a blank line with the widget's style: a segment without a
            return Strip.blank(self.size.width, self._base)  # style crashes NO_COLOR's filter
        return self._lines[y].extend_cell_length(self.size.width, self._base)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines = self._looks = None  # the theme or CSS changed: build with the new styles

    def on_resize(self) -> None:
        self._lines = None

"""The first frame timed, and split in two (benchmark only): the explorer's own code and Textual's steps.

:func:`first_frame_s` times an app's first frame. :func:`own_code` times, in CPU seconds, the
explorer's methods that run before the first frame (the pipeline's compose-time grid data, mount
and show: the trace, the views, every pane's data, the layout fit; the grids' and charts' lines:
numbers, colours, the plotext builds; the text panes' lines and heights; the key bar; the panes'
resize handlers). The app's own __init__ is left out: it is Textual's App.__init__ but for
~0.05 ms. The rest of the first frame is Textual's own work for this
widget tree (styles, compose and mount, layout, the first full render). If that rest alone is
more than the goal's ratio times the bare app's first frame, no change to the explorer's own
code can meet the goal with this tree.
"""

from __future__ import annotations

import functools
import inspect
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..tui.framework import on_first_frame
from ..tui.screens.pipeline import PipelineScreen
from ..tui.widgets.bar_plot import BarPlot
from ..tui.widgets.grid_cursor import GridCursor
from ..tui.widgets.key_bar import KeyBar
from ..tui.widgets.matrix_grid import MatrixGrid
from ..tui.widgets.text_lines import TextLines

if TYPE_CHECKING:
    from typing import Any

OWN = (
    (PipelineScreen, "_show_grids"),  # in compose too: every grid's view and data before the first layout
    (PipelineScreen, "on_mount"),
    (PipelineScreen, "show"),
    (PipelineScreen, "on_resize"),
    (MatrixGrid, "render_line"),
    (MatrixGrid, "on_resize"),
    (GridCursor, "on_focus"),  # MatrixGrid's
    (BarPlot, "render_line"),
    (BarPlot, "on_resize"),
    (TextLines, "render_line"),  # the status line, the explanation, the inspector, the key bar
    (TextLines, "get_content_height"),
    (TextLines, "on_resize"),
    (KeyBar, "_rebuild"),
    (KeyBar, "on_resize"),
)


async def first_frame_s(make, size) -> float:
    """CPU seconds from constructing the app to its first composited frame (headless at ``size``):
    CPU, not wall time, as for the keys (on a shared machine the wall clock also counts other processes)."""
    t0 = time.process_time()
    app = make()
    first: list[float] = []
    on_first_frame(app, lambda: first.append(time.process_time()))
    async with app.run_test(size=size) as pilot:
        while not first:
            await pilot.pause(0.005)
    return first[0] - t0


class OwnTime:
    """The CPU seconds spent in some methods, calls nested in one another counted once: what it
    keeps is declared here (the total, how deep the timed calls are now, the originals to restore)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.depth = 0
        self.saved: list[tuple[type, str, object]] = []

    def timed(self, orig):
        @functools.wraps(orig)  # Textual counts a handler's parameters: the original's
        def method(*args: Any, **kw: Any):
            if self.depth:
                return orig(*args, **kw)
            self.depth += 1
            t0 = time.process_time()
            try:
                return orig(*args, **kw)
            finally:
                self.seconds += time.process_time() - t0
                self.depth -= 1

        return method

    def wrap(self, owner: type, name: str) -> None:
        orig = inspect.getattr_static(owner, name)  # the function itself, as the class holds it
        self.saved.append((owner, name, orig))
        setattr(owner, name, self.timed(orig))

    def restore(self) -> None:
        for owner, name, orig in reversed(self.saved):
            setattr(owner, name, orig)
        self.saved.clear()


@contextmanager
def own_code(methods=OWN):
    """Yields an :class:`OwnTime` whose ``seconds`` are the CPU seconds spent in ``methods`` so far
    (calls nested in one another counted once); the methods are restored on exit."""
    own = OwnTime()
    try:
        for owner, name in methods:
            own.wrap(owner, name)
        yield own
    finally:
        own.restore()


async def split(make, size) -> tuple[float, float]:
    """(CPU seconds from constructing the app to its first composited frame, of which the
    explorer's own code), headless at ``size``, as :func:`first_frame_s` times the first frame."""
    with own_code() as own:
        t0 = time.process_time()
        app = make()
        first: list[tuple[float, float]] = []
        on_first_frame(app, lambda: first.append((time.process_time() - t0, own.seconds)))
        async with app.run_test(size=size) as pilot:
            while not first and app.is_running:  # an app that failed does not draw: do not wait
                await pilot.pause(0.005)
    return first[0]


async def textual_share_s(make, size) -> float:
    """The first frame less the explorer's own code's CPU time: Textual's part, in seconds."""
    total, own = await split(make, size)
    return total - own


def first_frame_lines(r: dict, goal: float, grids: int) -> list[str]:
    """The report's first-frame lines: the explorer's frame and each floor, with the ratios."""
    lines: list[str] = []
    lines.append(
        f"first frame: explorer {r['first_frame_explorer_s'] * 1000:.0f} ms   floor (a bare app with "
        f"{r['widgets']} widgets) {r['first_frame_bare_s'] * 1000:.0f} ms   {r['first_frame_ratio']:.2f}x   "
        f"(goal <= {goal}x; a one-widget app: {r['first_frame_one_widget_s'] * 1000:.0f} ms)"
    )
    lines.append(
        f"  floor with as many widgets, {grids} of them Line-API grids of numbers, the explorer's style "
        f"sheet and two plotext builds: {r['first_frame_content_s'] * 1000:.0f} ms   "
        f"{r['first_frame_content_ratio']:.2f}x"
    )
    lines.append(
        f"  Textual's own part of the explorer's first frame (less the explorer's code, first_frame.py): "
        f"{r['first_frame_textual_s'] * 1000:.0f} ms   {r['first_frame_textual_ratio']:.2f}x the floor"
    )
    lines.append(
        f"  that part and the chart's two plotext builds, the least this picture takes before the explorer's "
        f"other code: {r['first_frame_least_s'] * 1000:.0f} ms   {r['first_frame_least_ratio']:.2f}x the floor"
    )
    lines.append(
        f"  the same picture replayed ({r['first_frame_replay_widgets']} painted widgets as captured from the "
        f"explorer, absolutely placed, nothing computed, no style sheet): {r['first_frame_replay_s'] * 1000:.0f} ms   "
        f"{r['first_frame_replay_ratio']:.2f}x the floor; the explorer is {r['first_frame_over_replay']:.2f}x it"
    )
    return lines

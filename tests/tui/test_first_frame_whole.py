"""The first frame is drawn whole (issue 32): nothing the first focus or the first layout reports
sends the explorer drawing its panes again.

- The state opens with the cell cursor the home screen's first focus reports (A, the selected row,
  its first cell), so that focus changes no state: the panes are shown once.
- The key bar is fitted to the width it is drawn at, before its Resize arrives: the bar of the first
  frame ends with `^p palette` at that width, as the bar after a resize does."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.key_bar import KeyBar


def calls(monkeypatch, cls, name: str) -> list:
    """The first argument of each call of method ``name`` of ``cls`` (which still runs), in order."""
    real, seen = getattr(cls, name), []
    monkeypatch.setattr(cls, name, lambda self, arg, *more: seen.append(arg) or real(self, arg, *more))
    return seen


async def test_the_first_focus_changes_no_state(settle):
    app = AttentionApp()
    opened = app.state
    assert opened.cursor == ("A", opened.row, 0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.focused is app.screen.query_one("#grid-A")
        assert app.state is opened  # the focus reported the cursor the state opened with: no set_state


@pytest.mark.parametrize("width", [30, 50, 80, 119])
async def test_the_key_bar_is_fitted_to_the_width_it_is_drawn_at(settle, width):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        text = bar._lines(width)[0].text.rstrip()  # drawn at a width it has not been resized to
        assert len(text) <= width and text.endswith("^p palette"), text
        assert "? Help" in text
        await pilot.resize_terminal(width, 40)
        await settle(pilot)
        assert bar.plain.rstrip() == text  # what its Resize fits it to: the same bar


async def test_each_chart_plot_is_built_once_for_the_first_frame(settle, monkeypatch):
    """The first frame is drawn before the plots' Resize comes: each plot asks the chart for its bars
    at the size it is drawn at (BarPlot's prepare), so the resize finds them the same and nothing is
    built twice (plotext builds, ~1 ms each, were 4 for 2 plots)."""
    from attn_tui.tui.widgets.bar_plot import BarPlot

    built = []
    real = BarPlot._build
    monkeypatch.setattr(BarPlot, "_build", lambda self: built.append((self.id, tuple(self.size))) or real(self))
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        plots = {p.id: tuple(p.size) for p in app.screen.query(BarPlot)}
        assert sorted(built) == sorted(plots.items())
        assert all(p.data[-1] == plots[p.id] for p in app.screen.query(BarPlot))  # bars set for that size


async def test_no_part_of_the_first_screen_is_drawn_again(settle, monkeypatch):
    """Every pane is drawn right in the first frame Textual renders: none repaints a part of it once
    its Resize arrives (the status line's hint and the chart's border title, "· top n/N", were fitted
    after that frame, a partial update of two lines that cost a layout and a render)."""
    from textual._compositor import Compositor

    renders = []
    real = Compositor.render_update

    def render_update(self, *a, **k):
        out = real(self, *a, **k)
        if out is not None:
            renders.append(type(out).__name__)
        return out

    monkeypatch.setattr(Compositor, "render_update", render_update)
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert renders and all(kind == "LayoutUpdate" for kind in renders), renders  # whole frames only
        await pilot.press("j")
        await settle(pilot)
        assert "ChopsUpdate" in renders  # a key repaints a part: the count above can see one


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 16)])
async def test_the_status_line_and_chart_title_are_fitted_to_the_size_drawn_at(settle, size):
    app = AttentionApp()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        status, chart = app.screen.query_one("#status"), app.screen.query_one("#chart")
        first = status.plain, chart.border_title
        await pilot.resize_terminal(size[0] + 1, size[1] + 1)
        await settle(pilot)
        await pilot.resize_terminal(*size)
        await settle(pilot)
        assert (status.plain, chart.border_title) == first  # what a resize fits them to at that size


async def test_text_panes_make_their_lines_only_at_widths_they_are_drawn_at(settle, monkeypatch):
    """A text pane given its text before its first layout (width 0) makes no lines then: wrapped to
    one cell, the inspector's text was ~1 ms of the launch, thrown away at the first layout."""
    from attn_tui.tui.widgets.text_lines import TextLines

    widths = calls(monkeypatch, TextLines, "_lines")
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert widths and 0 not in widths, widths
        inspector = app.screen.query_one("#inspector")
        assert len(inspector._lines(inspector.size.width)) > 1  # the text is there, wrapped at its width


async def test_the_chart_makes_its_bars_once_for_the_first_frame(settle, monkeypatch):
    """The border title and each plot ask for the bars at the sizes drawn at: made once, not three times."""
    from attn_tui.tui.views.chart import ChartView

    rooms = calls(monkeypatch, ChartView, "bars")
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(rooms) == 1, rooms
        await pilot.press("plus")
        await settle(pilot)
        assert len(rooms) == 2  # a new view: its bars, once

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

"""The chart's throttle (widgets/softmax_chart.py), on a clock the test sets: a change after a
pause draws at once, in the same frame as the grids, even within INTERVAL of the last draw; a
burst of changes draws at most once per INTERVAL, and its last view is always drawn."""

from __future__ import annotations

import pytest

from attn_tui.tui.views.chart import chart_view
from attn_tui.tui.widgets import softmax_chart
from attn_tui.tui.widgets.softmax_chart import SoftmaxChart


@pytest.fixture
def clock(monkeypatch):
    """The chart's monotonic(), set by the test."""
    now = [100.0]
    monkeypatch.setattr(softmax_chart, "monotonic", lambda: now[0])
    monkeypatch.setattr(SoftmaxChart, "INTERVAL", 0.1)  # the throttle as users have it
    monkeypatch.setattr(SoftmaxChart, "BURST", 0.05)
    return now


def views(state, n: int) -> list:
    out = []
    for _ in range(n):
        state = state.scale_by(1.1)
        out.append(chart_view(state))
    return out


async def test_a_change_after_a_pause_draws_at_once_within_the_interval(make_app, clock):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        chart = app.screen.query_one(SoftmaxChart)
        while not chart.settled:  # the opening's drawings (the clock stood still: a burst)
            await pilot.pause()  # the pilot's own wait for the app to idle
        first, second = views(app.state, 2)
        clock[0] += 1.0  # long after the first drawing
        chart.show(first)
        assert chart.settled and chart._shown is first
        clock[0] += 0.06  # a key pressed by hand: a pause longer than BURST, shorter than INTERVAL
        chart.show(second)
        assert chart.settled and chart._shown is second  # drawn before the grids' frame, not after


async def test_a_burst_is_throttled_and_its_last_view_drawn(make_app, clock):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        chart = app.screen.query_one(SoftmaxChart)
        while not chart.settled:  # the opening's drawings (the clock stood still: a burst)
            await pilot.pause()  # the pilot's own wait for the app to idle
        first, *burst = views(app.state, 4)
        clock[0] += 1.0
        chart.show(first)
        assert chart.settled
        for view in burst:  # a held key: changes 20 ms apart
            clock[0] += 0.02
            chart.show(view)
            assert not chart.settled and chart._shown is first  # the draw waits for the throttle
        while not chart.settled:  # the timer (real time) fires: wait on the chart's state
            await pilot.pause()  # the pilot's own wait for the app to idle
        assert chart._shown is burst[-1]

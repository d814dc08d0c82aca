"""The fixtures of the tests that run the app (tests/tui, tests/snapshots, the capture tests that open the
explorer): an app factory, what a grid or chart draws, and waiting on the app's own state.

The softmax chart's redraw throttle is 0 in these tests (``chart_interval``), so a test waits
on the app's own state (``settle``: pending messages, refreshes, workers) and never
sleeps; a test of the throttle itself sets the interval back. They live apart from tests/conftest.py
so the core and report tests never import Textual.
"""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import DEFAULT, builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.softmax_chart import SoftmaxChart


@pytest.fixture(autouse=True)
def chart_interval(monkeypatch):
    """The chart draws every state at once (no 0.1 s throttle to wait out)."""
    monkeypatch.setattr(SoftmaxChart, "INTERVAL", 0.0)


@pytest.fixture
def make_app():
    """make_app() -> the explorer on the lesson pipeline; make_app("padding-nan") on a built-in.

    It opens on query row ``row`` (1 by default, as the tests of the keys and panes were written;
    a user's explorer opens on the scenario's focus_row, row 4 for the lesson: tested in
    tests/tui/test_open_on_focus_row.py); ``row=None`` keeps the scenario's own."""

    def make(name: str | None = None, row: int | None = 1) -> AttentionApp:
        s = builtin(name or DEFAULT)
        return AttentionApp(scenario=s if row is None else s.with_(focus_row=row))

    return make


@pytest.fixture
def grid_text():
    """grid_text(app, name): everything the grid ``name`` draws, as plain text (header row first)."""

    def text(app, name: str) -> str:
        grid = app.screen.query_one(f"#grid-{name}")
        return "\n".join(grid.render_line(y).text for y in range(grid.size.height))

    return text


@pytest.fixture
def grid_cell():
    """grid_cell(app, name, row, col): the text printed in cell (row, col) of grid ``name`` (0-based)."""

    def cell(app, name: str, row: int, col: int) -> str:
        return app.screen.query_one(f"#grid-{name}").cell_text(row, col)

    return cell


async def settle_app(pilot) -> None:
    """Until the app is idle: messages handled, refreshes done (twice: a refresh may
    schedule a call_after_refresh), and any running worker finished."""
    for _ in range(2):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.app.screen.workers.wait_for_complete()
    await pilot.pause()


@pytest.fixture
def settle():
    """await settle(pilot): let the app settle (no sleep: the chart throttle is off in tests)."""
    return settle_app


@pytest.fixture
def unpaced(monkeypatch):
    """The training screen's runs unpaced (its FRAME 0): each frame drawn as soon as its steps are taken."""
    from attn_tui.tui.screens import train

    monkeypatch.setattr(train, "FRAME", 0)


@pytest.fixture
def open_experiments():
    """await open_experiments(pilot): the experiments screen (`x`) once its first measurement is done."""

    async def open_(pilot):
        from attn_tui.tui.screens.experiments import ExperimentsScreen

        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, ExperimentsScreen)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        return screen

    return open_


@pytest.fixture
def chart_lines():
    def chart_lines(app, which: str) -> list[str]:
        plot = app.screen.query_one(f"#chart-{which}")
        return [plot.render_line(y).text for y in range(plot.size.height)]

    return chart_lines


@pytest.fixture
def on_screen():
    def on_screen(app, name: str) -> bool:
        """The grid ``name`` is wholly inside the pipeline's visible area."""
        grid = app.screen.query_one(f"#grid-{name}")
        view = app.screen.query_one("#pipeline").region
        r = grid.region
        return r.width > 0 and r.x >= view.x and r.right <= view.right and r.y >= view.y and r.bottom <= view.bottom

    return on_screen

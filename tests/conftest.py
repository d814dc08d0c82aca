"""Shared fixtures for the app tests: a pinned environment and an app factory.

Snapshots must not depend on the user's terminal: NO_COLOR and TEXTUAL_THEME are
removed for every test, and nothing in the explorer blinks.
"""

from __future__ import annotations

import pytest

from attn_tui.app import AttentionApp
from attn_tui.core.builtins import builtin


@pytest.fixture(autouse=True)
def pinned_env(monkeypatch):
    for var in ("NO_COLOR", "TEXTUAL_THEME", "TEXTUAL_ANIMATIONS"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def make_app():
    """make_app() -> the explorer on the lesson pipeline; make_app("padding-nan") on a built-in."""

    def make(name: str | None = None) -> AttentionApp:
        return AttentionApp(scenario=builtin(name) if name else None)

    return make


def grid_text(app, name: str) -> str:
    """Everything the grid ``name`` draws, as plain text (header row first)."""
    grid = app.screen.query_one(f"#grid-{name}")
    return "\n".join(grid.render_line(y).text for y in range(grid.size.height))


def grid_cell(app, name: str, row: int, col: int) -> str:
    """The text printed in cell (row, col) of grid ``name`` (0-based)."""
    grid = app.screen.query_one(f"#grid-{name}")
    return grid.cell_text(row, col)


async def settle(pilot) -> None:
    """Let the app settle: past the chart's 0.1 s redraw throttle, then one more refresh."""
    await pilot.pause(0.3)
    await pilot.pause()


async def open_experiments(pilot):
    """Open the experiments screen (`x`) and wait for its first measurement to finish."""
    from attn_tui.screens.experiments import ExperimentsScreen

    await pilot.pause()
    await pilot.press("x")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ExperimentsScreen)
    await screen.workers.wait_for_complete()
    await pilot.pause()
    return screen

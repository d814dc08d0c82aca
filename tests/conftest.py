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

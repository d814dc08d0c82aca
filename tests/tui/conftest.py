"""The app's fixtures (tests/tui/app_fixtures.py) for every test here: each runs the app or its widgets."""

from tests.tui.app_fixtures import (  # noqa: F401 (fixtures, found by pytest through this module)
    chart_interval,
    chart_lines,
    grid_cell,
    grid_text,
    make_app,
    on_screen,
    open_experiments,
    settle,
    unpaced,
)

"""The app's fixtures (tests/tui/app_fixtures.py) that the snapshots use: each runs the app."""

from tests.tui.app_fixtures import chart_interval, open_experiments, settle, unpaced  # noqa: F401 (fixtures)

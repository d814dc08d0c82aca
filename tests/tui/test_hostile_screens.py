"""Issue 52's done-when, the `--scenario` door with each screen opened: every hostile file that opens
(tests/tui/hostile_doors.py) is launched as `attn-tui --scenario F --fresh` launches it, and every screen of
the registry is opened on it, with the keys that open its other views. No file takes the app down, and the
file's labels are the ones shown throughout. The files whose heads promise thousands of tokens or a million
heads (a few KB, sparse), and the wide labels, are the long lane's: 12 to 50 s each here (2 loaded cores)."""

from __future__ import annotations

import pytest

from attn_tui.tui.screens import SCREENS
from tests.tui.hostile_doors import SIZE, launched, open_every_screen, readable_files

LONG = pytest.mark.long  # the long lane (docs/TESTING.md)
NAMES = [
    "markup.toml",
    "markup heads",
    pytest.param("wide.toml", marks=LONG),
    pytest.param("wide heads", marks=LONG),
    pytest.param("2,048 tokens, sparse", marks=LONG),
    pytest.param("1,024 x 1,024 heads, sparse", marks=LONG),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return readable_files(tmp_path_factory.mktemp("open"))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
async def test_every_screen_opens_on_each_readable_hostile_file(files, name):
    app = launched("--scenario", files[name], "--fresh")
    opened = app.state.scenario
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        seen = await open_every_screen(app, pilot)
        assert seen == list(SCREENS)
        assert app.is_running and app.state.scenario.tokens == opened.tokens  # the same file's labels, drawn
        await pilot.press("q")
    assert app.return_code in (None, 0)

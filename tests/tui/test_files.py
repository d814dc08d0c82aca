"""Pilot tests of open/save/export in the app: bit-exact round trip, overwrite
confirmation, bad files leave the current scenario in place."""

import numpy as np
import pytest

from attn_tui.core.scenario_io import load
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.files import ConfirmScreen, ExportScreen, OpenScreen, SaveScreen

SIZE = (120, 40)


async def submit_path(app, pilot, path):
    app.screen.query_one("#path").value = str(path)
    app.screen.query_one("#path").focus()
    await pilot.press("enter")
    await pilot.pause()


async def edit_cell(app, pilot, grid, value, downs=0):
    app.query_one(f"#grid-{grid}").focus()
    await pilot.press(*["down"] * downs, "enter")
    await pilot.pause()
    app.screen.query_one("#editor-input").value = value
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.slow
async def test_save_and_reload_bit_exact(tmp_path):
    app = AttentionApp()
    path = tmp_path / "mine.toml"
    async with app.run_test(size=SIZE) as pilot:
        await edit_cell(app, pilot, "W_K", "0.1", downs=1)  # 0.1 is not exact in binary
        await pilot.press("plus", "f")
        await pilot.pause()
        await pilot.press("escape", "s")
        await pilot.pause()
        assert isinstance(app.screen, SaveScreen)
        await submit_path(app, pilot, path)
        assert not isinstance(app.screen, SaveScreen) and path.exists()
        before = app.state.scenario
        back = load(path)
        for name in ("X", "W_Q", "W_K", "W_V"):
            assert np.array_equal(getattr(back, name), getattr(before, name))
        assert back.c == before.c and back.c != 1.0 and back.W_K[1, 0] == 0.1
        assert np.array_equal(back.run().A, app.state.trace.A)
        # change, then open the saved file: everything comes back
        await edit_cell(app, pilot, "X", "7")
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OpenScreen)
        await submit_path(app, pilot, path)
        assert np.array_equal(app.state.scenario.X, before.X) and app.state.scenario.c == before.c


@pytest.mark.parametrize("answer", ["n", "y"])
async def test_overwrite_asks_first(tmp_path, answer):
    path = tmp_path / "old.toml"
    path.write_text("precious")
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        await pilot.pause()
        await submit_path(app, pilot, path)
        assert isinstance(app.screen, ConfirmScreen) and "Overwrite" in app.screen.question
        await pilot.press(answer)
        await pilot.pause()
        if answer == "n":
            assert path.read_text() == "precious" and isinstance(app.screen, SaveScreen)
        else:
            assert load(path).title == app.state.scenario.title and not isinstance(app.screen, SaveScreen)


@pytest.mark.parametrize(
    "content,words",
    [
        ("X = [[1, 2], [3]]", "ragged"),
        ("not toml at all [", "not valid TOML"),
        ('title = "t"\nX = [[1.0]]', "W_Q: missing"),
        (None, "no such file"),
    ],
)
async def test_bad_file_keeps_current_scenario(tmp_path, content, words):
    path = tmp_path / "bad.toml"
    if content is not None:
        path.write_text(content)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        before = app.state.scenario
        await pilot.press("o")
        await pilot.pause()
        await submit_path(app, pilot, path)
        assert isinstance(app.screen, OpenScreen)
        assert words in app.screen.message and str(path) in app.screen.message
        assert any(words in m for m in app.notes.messages())
        assert app.state.scenario is before
        await pilot.press("escape")


async def test_open_builtin_from_list():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        await pilot.pause()
        ol = app.screen.query_one("#builtins")
        ol.focus()
        ol.highlighted = [o.id for o in ol.options].index("cross-attention")
        await pilot.press("enter")
        await pilot.pause()
        assert app.state.scenario.cross and app.state.trace.A.shape == (5, 3)
        await pilot.press("ctrl+z")
        assert not app.state.scenario.cross


@pytest.mark.parametrize("fmt", ["csv", "npy"])
@pytest.mark.slow
async def test_export_matrices(tmp_path, fmt, read_csv):
    app = AttentionApp()
    folder = tmp_path / "out"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        await submit_path(app, pilot, folder)
        ol = app.screen.query_one("#formats")
        ol.highlighted = [o.id for o in ol.options].index(fmt)
        await pilot.press("enter")
        await pilot.pause()
        read = read_csv if fmt == "csv" else np.load
        assert np.array_equal(read(folder / f"A.{fmt}"), app.state.trace.A)
        assert np.array_equal(read(folder / f"O.{fmt}"), app.state.trace.O)
        await pilot.press("e")  # again: asks before overwriting
        await pilot.pause()
        await submit_path(app, pilot, folder)
        ol = app.screen.query_one("#formats")
        ol.highlighted = [o.id for o in ol.options].index(fmt)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")


async def test_export_svg_screenshot(tmp_path):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await pilot.pause()
        await submit_path(app, pilot, tmp_path / "shot.svg")
        ol = app.screen.query_one("#formats")
        ol.highlighted = [o.id for o in ol.options].index("svg")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        svg = (tmp_path / "shot.svg").read_text()
        assert svg.startswith("<svg") and "Export the current" not in svg and "W_Q" in svg


@pytest.mark.slow
async def test_save_offers_the_scenario_on_screen_not_the_last_file_opened(tmp_path):
    """Open a .toml, then a built-in: save offers the built-in's name, not the .toml (whose `y` would
    overwrite it with another scenario)."""
    path = tmp_path / "mine.toml"
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        await pilot.pause()
        await submit_path(app, pilot, path)
        await pilot.press("o")
        await pilot.pause()
        await submit_path(app, pilot, path)
        await pilot.press("s")
        await pilot.pause()
        assert app.screen.query_one("#path").value == str(path)  # the file on screen
        await pilot.press("escape", "o")
        await pilot.pause()
        await submit_path(app, pilot, "cross-attention")
        assert app.state.scenario.cross
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SaveScreen)
        assert app.screen.query_one("#path").value == "cross-attention.toml"

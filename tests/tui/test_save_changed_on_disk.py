"""Issue 34 item 9: two explorers saving one file. The second save overwrote the first with the
same 'exists. Overwrite it?' as for one's own file: the other's work went without a word. The
explorer records (inode, size, mtime_ns) when it opens or saves a file and asks a different
question when the file changed since."""

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.scenario_io import load, save
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.files import ConfirmScreen, SaveScreen
from tests.tui.test_files import submit_path

pytestmark = pytest.mark.slow  # two explorers, each through the save dialog

SIZE = (120, 40)
OTHER = builtin("lesson-handcrafted")  # what the other explorer saves


async def save_as(app, pilot, settle, path):
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(app.screen, SaveScreen)
    await submit_path(app, pilot, path)
    await settle(pilot)


@pytest.mark.parametrize("first", ["open", "save"])
async def test_a_file_another_explorer_saved_meanwhile_is_not_overwritten_unasked(first, tmp_path, settle):
    path = tmp_path / "shared.toml"
    save(builtin("lesson-pipeline"), path)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if first == "open":
            await pilot.press("o")
            await settle(pilot)
            await submit_path(app, pilot, path)
        else:
            await save_as(app, pilot, settle, path)
            await pilot.press("y")
        await settle(pilot)
        save(OTHER, path, overwrite=True)  # the other explorer saves the same file
        await save_as(app, pilot, settle, path)
        assert isinstance(app.screen, ConfirmScreen) and "changed on disk" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert load(path).title == OTHER.title  # kept
        await submit_path(app, pilot, path)
        await pilot.press("y")  # asked and answered: overwritten
        await settle(pilot)
        assert load(path).title == app.state.scenario.title
        await save_as(app, pilot, settle, path)  # our own last save: the ordinary question
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question == f"{path} exists. Overwrite it?"

"""Issue 42 item 8: the open dialog speaks to a learner. Its built-ins are described in words (no
``markup`` or constant names of the code), and it offers no file that does not exist (on a built-in it
offered `box-kernel.toml`, and enter said "no such file")."""

from __future__ import annotations

import re

from textual.widgets import OptionList

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.files import OpenScreen

SIZE = (120, 40)
CODE = re.compile(r"``|\b[A-Z]{2,}_[A-Z_]+\b|\(default [A-Z_]+\)")  # reST literals, CONSTANT_NAMES


async def _open(app, pilot, settle):
    await pilot.press("o")
    await settle(pilot)
    assert isinstance(app.screen, OpenScreen)
    return app.screen


async def test_builtins_are_described_without_code(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _open(app, pilot, settle)
        options = dialog.query_one("#builtins", OptionList)
        texts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(t.startswith("induction-demo: ") for t in texts)
        for t in texts:
            name, _, words = t.partition(": ")
            assert words.strip() and words == words.strip(), t  # a description, no stray space or quote first
            assert not CODE.search(t), t


async def test_on_a_builtin_the_path_offered_is_empty_not_a_missing_file(settle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _open(app, pilot, settle)
        dialog.query_one("#path").value = "box-kernel"
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.scenario.title and not isinstance(app.screen, OpenScreen)
        dialog = await _open(app, pilot, settle)
        offered = dialog.query_one("#path").value
        assert offered == "" or (tmp_path / offered).is_file(), offered  # was box-kernel.toml, not there
        await pilot.press("escape", "s")  # save still offers the built-in's name to write
        await settle(pilot)
        assert app.screen.query_one("#path").value == "box-kernel.toml"
        await pilot.press("enter")  # saved: now the file exists, and open offers it
        await settle(pilot)
        assert (tmp_path / "box-kernel.toml").is_file()
        dialog = await _open(app, pilot, settle)
        assert dialog.query_one("#path").value == "box-kernel.toml"

"""The palette's Screenshot command saves where it can and says where (Textual's own saved into a
~/Downloads that may not exist and said only "Failed to save screenshot")."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp


@pytest.mark.slow
async def test_screenshot_goes_to_the_current_folder_without_downloads(tmp_path, monkeypatch, settle):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/Downloads
    monkeypatch.chdir(tmp_path)
    app = AttentionApp()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        saved = app.deliver_screenshot()
        await settle(pilot)
        files = list(tmp_path.glob("*.svg"))
        assert [str(f) for f in files] == [saved] and "<svg" in files[0].read_text()
        assert any(saved in n.message for n in app._notifications), [n.message for n in app._notifications]


async def test_a_folder_that_cannot_be_written_is_named(tmp_path, settle):
    app = AttentionApp()
    missing = tmp_path / "no" / "such"
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert app.deliver_screenshot(path=str(missing)) is None
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any(str(missing) in m and "could not save" in m for m in messages), messages

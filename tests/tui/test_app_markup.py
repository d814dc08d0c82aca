"""User text (labels, typed values, paths) is shown as text, never parsed as markup."""

import pytest

from attn_tui.core import builtin
from attn_tui.tui.app import AttentionApp

TRICKY = ("[/a]", "[b]x", "t3 [red]", "t4", "t5")


@pytest.mark.long
@pytest.mark.slow
async def test_markup_like_labels_render_on_every_screen():
    s = builtin("lesson-pipeline").with_(tokens=TRICKY, features=("[/x]", "b", "c", "d", "e", "f"), focus_row=1)
    app = AttentionApp(s)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "[/a]" in str(app.screen.query_one("#chart").border_title)
        for key in ("down", "l", "x", "t", "p", "?", "escape", "b"):
            await pilot.press(key)
            await pilot.pause()
        assert app.return_code is None  # still running: no MarkupError took it down


async def test_a_label_with_an_unclosed_bracket_is_drawn_in_the_charts_title(tmp_path):
    """Issue 52.1: markup.escape leaves "[x=" (no closing bracket) as it is, and the chart's title
    raised MarkupError when its row was shown: at launch on that row, or when j reached it."""
    from attn_tui.core.scenario_io import load
    from attn_tui.core.scenario_write import dumps

    labels = ("[x=", "[bold red]B[/]", "t3 [soft", "t4", "t5")
    path = tmp_path / "brackets.toml"
    path.write_text(dumps(builtin("lesson-pipeline").with_(tokens=labels, focus_row=1)), encoding="utf-8")
    app = AttentionApp(load(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for label in labels[:3]:
            assert app.screen.query_one("#chart").title_text.startswith(f"softmax row {label.split()[0]}")
            await pilot.press("j")
            await pilot.pause()
        assert app.return_code is None


async def test_markup_typed_into_the_cell_editor_is_refused_as_text():
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#grid-X").focus()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("ctrl+a", *"[/a]", "enter")
        await pilot.pause()
        message = str(app.screen.query_one("#editor-message").render())
        assert "[/a]" in message and "not a number" in message
        assert app.state.scenario.X[0, 0] == 1.0  # the old value stays

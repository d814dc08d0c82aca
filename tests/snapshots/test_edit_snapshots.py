"""SVG snapshots of the editing UI: the inline editor (prefilled; its refusal line is checked by
text in tests/tui/test_edit_app.py),
float16's overflowing fill, and cross-attention (T×T'). The NaN explanation of padding-nan at
120×40 is test_snapshots.py's test_explorer_padding_nan_120x40 (the same picture)."""

import pytest
from textual.widgets import Input

from attn_tui.core.builtins import builtin
from attn_tui.core.edit import add_key_token
from attn_tui.tui.app import AttentionApp

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def _pinned_env(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)


async def _no_blink(pilot):
    for inp in pilot.app.screen.query(Input):
        inp.cursor_blink = False
    await pilot.pause()


async def _editor(pilot):
    pilot.app.query_one("#grid-W_Q").focus()
    await pilot.press("down", "down", "down", "enter")
    await pilot.pause()
    await _no_blink(pilot)


def test_snapshot_editor_open(snap_compare):
    assert snap_compare(AttentionApp(), terminal_size=SIZE, run_before=_editor)


def test_snapshot_float16_fill(snap_compare):
    assert snap_compare(AttentionApp(builtin("float16-overflow")), terminal_size=SIZE)


def test_snapshot_cross_attention(snap_compare):
    s = add_key_token(builtin("cross-attention"), "y4 was")
    assert snap_compare(AttentionApp(s), terminal_size=SIZE)


def test_snapshot_padding_picker(snap_compare):
    async def run(pilot):
        await pilot.press("b", "down")
        await pilot.pause()

    assert snap_compare(AttentionApp(), terminal_size=SIZE, run_before=run)

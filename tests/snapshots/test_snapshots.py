"""SVG snapshots of the explorer (120×40, 80×24, after keys) and the help screen.

Deterministic: no cursor blinks in the explorer, NO_COLOR/TEXTUAL_THEME are removed
(conftest), the scenario is the built-in lesson pipeline. Update with
`pytest tests/test_snapshots.py --snapshot-update` after a deliberate change, and look
at the new SVGs before committing them.
"""

from __future__ import annotations

from attn_tui.tui.app import AttentionApp
from attn_tui.core.builtins import builtin



def test_explorer_120x40(snap_compare, settle):
    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=settle)


def test_explorer_80x24(snap_compare, settle):
    assert snap_compare(AttentionApp(), terminal_size=(80, 24), run_before=settle)


def test_explorer_after_keys_120x40(snap_compare, settle):
    """Row t4 (it) selected, c turned up twice, cursor on A(4,2): the row sharpens."""
    async def keys(pilot):
        await pilot.press("down", "down", "down", "right", "plus", "plus")
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=keys)


def test_explorer_padding_nan_120x40(snap_compare, settle):
    assert snap_compare(AttentionApp(scenario=builtin("padding-nan")), terminal_size=(120, 40),
                        run_before=settle)


def test_help_screen(snap_compare, settle):
    async def help_(pilot):
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=help_)

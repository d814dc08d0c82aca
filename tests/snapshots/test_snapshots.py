"""SVG snapshots of the explorer (120×40, 80×24, pinned, padding-nan) and the help screen. The
explorer after keys is in textual-light (test_light_snapshots.py); a wide screen's layout is
checked by text (tests/tui/test_layout_wide.py).

Deterministic: no cursor blinks in the explorer, NO_COLOR/TEXTUAL_THEME are removed
(conftest), the scenario is the built-in lesson pipeline. Update with
`pytest tests/snapshots --snapshot-update` after a deliberate change, and look
at the new SVGs before committing them.
"""

from __future__ import annotations

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp


def test_explorer_120x40(snap_compare, settle):
    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=settle)


def test_explorer_80x24(snap_compare, settle):
    assert snap_compare(AttentionApp(), terminal_size=(80, 24), run_before=settle)


def test_explorer_pinned_unscaled_120x40(snap_compare, settle):
    """Exercise 1 read as a difference: pin (P), scaling off (u): ΔA, H pin/H/ΔH, ┃ ticks."""

    async def keys(pilot):
        await pilot.press("P", "u")
        await settle(pilot)

    assert snap_compare(AttentionApp(scenario=builtin("lesson-handcrafted")), terminal_size=(120, 40), run_before=keys)


def test_explorer_padding_nan_120x40(snap_compare, settle):
    assert snap_compare(AttentionApp(scenario=builtin("padding-nan")), terminal_size=(120, 40), run_before=settle)


def test_help_screen(snap_compare, settle):
    async def help_(pilot):
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=help_)

"""SVG snapshots of the explorer (120×40, 80×24, 200×60, after keys, pinned) and the help screen.

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


def test_explorer_after_keys_120x40(snap_compare, settle):
    """Row t4 (it), where the explorer opens; c turned up twice, cursor on A(4,2): the row sharpens."""

    async def keys(pilot):
        await pilot.press("right", "plus", "plus")
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=keys)


def test_explorer_200x60(snap_compare, settle):
    """A large screen: the chart and inspector grow, bars thicken."""
    assert snap_compare(AttentionApp(), terminal_size=(200, 60), run_before=settle)


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

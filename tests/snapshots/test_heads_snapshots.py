"""Snapshots of the heads UI (each looked at as PNG): the heads screen of induction-demo at its
default T = 20 (every head whole, half blocks), on a repeated sequence at 120x40 and 80x24, and
the pipeline on one of its heads. The pictures in textual-light and NO_COLOR are read back off
the screen: tests/tui/test_heads_full_resolution.py."""

from __future__ import annotations

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref

REPEAT = "q w e r t y q w e r t y"


def _app() -> AttentionApp:
    s, ref = open_ref("induction-demo", REPEAT, layer=1)
    return AttentionApp(scenario=s, head=ref)


def keys(settle, *pressed):
    async def run_before(pilot):
        await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot)

    return run_before


def test_heads_screen_120x40(snap_compare, settle):
    """Layer 1 sorted by the induction score (v six times: head, H, log2t, prev, first, self, ind)."""
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=keys(settle, "h", *"vvvvvv"))


def test_heads_screen_default_T20_120x40(snap_compare, settle):
    """induction-demo as it opens (T = 20): the 4 heads of layer 0 whole, one cell per (query, key)."""
    s, ref = open_ref("induction-demo")
    assert s.T == 20
    assert snap_compare(AttentionApp(scenario=s, head=ref), terminal_size=(120, 40), run_before=keys(settle, "h"))


def test_heads_screen_80x24(snap_compare, settle):
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=keys(settle, "h"))


def test_pipeline_on_a_head_120x40(snap_compare, settle):
    """Layer 1, head 2 (> twice): the status line says which head; A is that head's."""
    assert snap_compare(
        _app(), terminal_size=(120, 40), run_before=keys(settle, "greater_than_sign", "greater_than_sign")
    )

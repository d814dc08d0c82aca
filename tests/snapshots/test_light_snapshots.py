"""SVG snapshots in textual-light (the pinned environment of conftest, the theme set before the
first frame is compared): the explorer with the cell cursor and the selected row, masked, blocked
and NaN cells (padding-nan with the -inf fill). The tour's try-it line reads in both themes:
tests/tui/test_theme.py."""

from __future__ import annotations

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp

LIGHT = "textual-light"


def light(settle, *keys):
    async def run_before(pilot):
        pilot.app.theme = LIGHT
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_light_explorer_after_keys_120x40(snap_compare, settle):
    """Row t4 selected, c turned up, the cursor on A(4,2): cursor, selected row and label, both charts."""
    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=light(settle, "right", "plus"))


def test_light_padding_nan_neg_inf_120x40(snap_compare, settle):
    """Masked M cells, struck-through blocked cells, a NaN row and its explanation line, in light."""
    app = AttentionApp(scenario=builtin("padding-nan").with_(fill="-inf"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=light(settle))

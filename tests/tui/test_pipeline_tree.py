"""The pipeline screen's widget tree holds no container it does not need: every widget costs
the first frame (styles, layout, render) and every keypress (the compositor renders the
containers behind a changed line; Pilot waits on each widget)."""

from __future__ import annotations

from textual.containers import Horizontal

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pipeline import ROWS


async def test_a_pane_group_holds_the_two_panes_that_stay_together():
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        groups = list(app.screen.query(".pane-group"))
        assert [len(g.children) for g in groups] == [2] * sum(len(names) > 1 for names in ROWS)
        for row in app.screen.rows:  # a lone pane (Y) or a row's third pane sits in the row itself
            assert all(not isinstance(c, Horizontal) or c.has_class("pane-group") for c in row.children)

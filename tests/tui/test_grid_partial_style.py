"""A grid's Look reads each component class's partial style straight from its styles
(palette.SharedStyles.partial_style): the same Style Textual's get_component_rich_style(partial=True)
gives, without the full style Textual computes beside it (issue 32's launch)."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets import palette as P


@pytest.mark.parametrize("theme", [None, "textual-light"])
async def test_partial_style_is_textuals_partial_rich_style_for_every_class(theme):
    app = AttentionApp()
    if theme is not None:
        app.theme = theme
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for grid in (app.screen.query_one("#grid-A"), app.screen.query_one("#grid-X")):
            for name in sorted(P.COMPONENTS):
                assert grid.partial_style(name) == grid.get_component_rich_style(name, partial=True), name

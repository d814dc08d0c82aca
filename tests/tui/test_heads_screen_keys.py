"""The heads screen's keys that belong to screens of one query (issue 51): j/k moved a query row that
nothing there shows, R and f did nothing and said nothing. Now none of them changes the state, and
each says in one line where it works."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.heads import NOT_HERE


@pytest.mark.parametrize(("key", "what"), [("j", "row"), ("k", "row"), ("R", "tokens"), ("f", "tokens")])
async def test_row_and_token_view_keys_say_where_they_work(key, what, settle):
    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert type(app.screen).__name__ == "HeadsScreen"
        before = app.state
        await pilot.press(key)
        await settle(pilot)
        assert app.state is before  # no row moved, no key token removed, no fill picker
        assert type(app.screen).__name__ == "HeadsScreen"
        assert any(NOT_HERE[what] in m for m in app.notes.messages())

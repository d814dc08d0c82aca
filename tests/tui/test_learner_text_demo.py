"""What a learner meets on text-demo (session 18, learner items 3 and 5): the token view says its
prediction is the model's own, which c and edits do not touch; the model view at 80x24 shows where
the query looks in every head on its first screen, as its title promises, the prediction after."""

from __future__ import annotations

import numpy as np

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen
from attn_tui.tui.widgets.token_text import TokenText
from tests.core.textmodels import text_demo_model


async def _keys(pilot, settle, *keys: str) -> None:
    for k in keys:
        await pilot.press(k)
        await settle(pilot)


def _app() -> AttentionApp:
    s, ref = open_ref("text-demo")
    return AttentionApp(scenario=s, head=ref)


async def test_c_changes_the_shading_not_the_prediction_and_the_view_says_so(settle, monkeypatch, tmp_path):
    text_demo_model(monkeypatch, tmp_path)
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T")
        assert isinstance(app.screen, TokensScreen)
        before = app.screen.query_one("#tokens-predict").plain
        codes, c = app.screen.query_one(TokenText).codes.copy(), app.state.scenario.c
        await _keys(pilot, settle, "+", "+", "+")
        assert app.state.scenario.c != c
        assert not np.array_equal(app.screen.query_one(TokenText).codes, codes)  # the shading follows c
        after = app.screen.query_one("#tokens-predict").plain
        assert after == before  # the prediction does not: the model's own weights
        assert "the model's own weights: c and edits do not apply to it" in after.splitlines()[0]


async def test_the_model_view_at_80x24_shows_every_head_first(settle, monkeypatch, tmp_path):
    text_demo_model(monkeypatch, tmp_path)
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T", "M")
        assert isinstance(app.screen, ModelScreen)
        heads, scroll = app.screen.query_one("#model-heads"), app.screen.query_one("#model-scroll")
        n = app.state.head.source.n_heads
        assert len(heads.plain.splitlines()) == n
        view = scroll.region
        assert view.y <= heads.region.y and heads.region.y + n <= view.bottom, (heads.region, view)
        predict = app.screen.query_one("#model-predict")
        assert predict.region.y >= heads.region.bottom  # the prediction after

"""text-demo in the explorer, driven as a learner would (issue 49): `i`, a sentence, then the token view
and the model view on it; a text the model cannot read refused in one line, the state kept; the heads
screen, rollout and W on it. The shipped text model when it ships, else random weights of its format."""

from __future__ import annotations

import numpy as np
import pytest
from textual.widgets import Input

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen
from attn_tui.tui.widgets.token_text import TokenText
from tests.core.textmodels import text_demo_model
from tests.tui.test_heads_screen import shown_tiles

SIZE = (120, 40)
SENTENCE = "The old man walked to the river. Later, the old man walked to the river again."


@pytest.fixture
def text_model(monkeypatch, tmp_path):
    return text_demo_model(monkeypatch, tmp_path)


async def _typed(pilot, settle, value: str):
    await pilot.press("i")
    await settle(pilot)
    pilot.app.screen.query_one("#field-text", Input).value = value
    await pilot.press("enter")
    await settle(pilot)


async def test_a_sentence_typed_then_the_token_view_and_the_model_view_on_it(settle, text_model):
    s, ref = open_ref("text-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _typed(pilot, settle, SENTENCE)
        src = app.state.head.source
        enc = text_model.tokenizer.encode(SENTENCE)
        assert src.text == SENTENCE and src.T == len(enc.ids) and app.state.scenario.T == src.T
        np.testing.assert_array_equal(src.run.ids, enc.ids)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, TokensScreen)
        text = app.screen.query_one(TokenText)
        assert text.joined and "".join(text.texts).replace("␣", " ") == SENTENCE  # joined as the model reads them
        assert text.selected == app.state.row
        await pilot.press("M")
        await settle(pilot)
        assert isinstance(app.screen, ModelScreen)
        lines = app.screen.query_one("#model-heads").plain.splitlines()
        assert len(lines) == text_model.n_heads
        assert all(line.lstrip("▶ ").startswith(f"L{app.state.head.layer}.H{h}") for h, line in enumerate(lines))


@pytest.mark.parametrize(
    ("value", "words"),
    [("   ", "text: no text"), ("word " * 1100, "tokens; the model has 1,024 positions")],
)
async def test_a_text_it_cannot_read_is_one_line_and_nothing_changes(settle, text_model, value, words):
    s, ref = open_ref("text-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.state
        await _typed(pilot, settle, value)
        said = str(app.screen.query_one("#form-message").render())
        assert words in said and "\n" not in said.strip() and "--" not in said
        assert app.state is before


async def test_the_heads_screen_rollout_and_W_on_a_sentence(settle, text_model):
    s, ref = open_ref("text-demo", SENTENCE)
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, HeadsScreen)
        assert shown_tiles(app.screen) and len(shown_tiles(app.screen)) >= text_model.n_heads
        await pilot.press("escape", "T", "R")  # the rollout of the whole model
        await settle(pilot)
        assert isinstance(app.screen, TokensScreen) and app.screen.rollout
        await pilot.press("R", "W")
        await settle(pilot)
        assert app.state.weighting_shown == "value"
        assert "value-weighted" in app.screen.query_one("#tokens-header").plain

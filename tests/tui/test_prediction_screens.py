"""The prediction on the token view (T) and the model view (M), driven as a learner would: the lines follow
the query, `n` steps the head shown along the ranking of shares (the model's own, recomputed in the tests:
tests/core/demo_forward.py), enter in the model view opens that head in the token view, a file of heads
says why it has no prediction, and small terminals still draw."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.prediction import NO_PREDICTION
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import first_head, open_ref
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen
from tests.core.demo_forward import REPEAT, own_forward
from tests.core.headtools import save_source

SIZE = (120, 40)
VOCAB = "abcdefghijklmnopqrstuvwxyz"


def _app(layer=0, head=0) -> AttentionApp:
    s, ref = open_ref("induction-demo", REPEAT, layer=layer, head=head)
    return AttentionApp(scenario=s, head=ref)


def _ranking(t: int) -> list:
    """The heads by their share of the top token's logit after t (0-based), largest first."""
    logits, _, writes, W_U = own_forward(REPEAT)
    tok = int(np.argmax(logits[t]))
    return sorted(writes, key=lambda k: -float(writes[k][t] @ W_U[:, tok]))


async def _press(pilot, settle, *keys):
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def test_the_token_view_predicts_and_n_walks_the_ranking(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        assert isinstance(app.screen, TokensScreen)
        while app.state.row < 10:
            await _press(pilot, settle, "j")
        logits = own_forward(REPEAT)[0][10]
        lines = app.screen.query_one("#tokens-predict").plain.splitlines()
        assert lines[0].startswith(f"predicts {VOCAB[int(np.argmax(logits))]!r} ")
        ranking = _ranking(10)
        start = ranking.index((0, 0))  # the head shown: n goes to the one after it
        for k in range(1, len(ranking) + 1):  # round again after the last
            await _press(pilot, settle, "n")
            assert (app.state.head.layer, app.state.head.head) == ranking[(start + k) % len(ranking)]
            assert isinstance(app.screen, TokensScreen)


async def test_enter_in_the_model_view_opens_the_marked_head_in_the_token_view(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "M")
        assert isinstance(app.screen, ModelScreen)
        t = app.state.row
        ranking = _ranking(t)
        await _press(pilot, settle, "n", "n")
        want = ranking[(ranking.index((0, 0)) + 2) % len(ranking)]
        assert (app.state.head.layer, app.state.head.head) == want
        block = app.screen.query_one("#model-predict").plain
        assert f"▶ L{want[0]}.H{want[1]} " in block and block.count("▶") == 1
        await _press(pilot, settle, "enter")
        assert isinstance(app.screen, TokensScreen)
        assert (app.state.head.layer, app.state.head.head) == want
        assert app.screen.query_one("#tokens-header").plain.startswith(f"layer {want[0]} · head {want[1]} ")


async def test_a_file_of_heads_says_why_and_n_refuses(settle, tmp_path):
    path = save_source(open_heads("induction-demo", REPEAT), tmp_path / "heads.safetensors")
    s, ref = first_head(open_heads(str(path)), str(path))
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        assert app.screen.query_one("#tokens-predict").plain == NO_PREDICTION
        await _press(pilot, settle, "n")
        assert (app.state.head.layer, app.state.head.head) == (0, 0)
        await _press(pilot, settle, "M")
        assert app.screen.query_one("#model-predict").plain.startswith(NO_PREDICTION)


@pytest.mark.parametrize("size", [(20, 6), (80, 24)])
async def test_small_terminals_draw_the_prediction(settle, size):
    app = _app(1, 2)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T", "j", "n", "M", "n", "enter")
        assert isinstance(app.screen, TokensScreen)
        assert app.screen.query_one("#tokens-predict").plain.startswith("predicts ")


async def test_text_demo_predicts_in_both_views(settle, monkeypatch, tmp_path):
    """text-demo (the shipped model, else random weights of its format): the token view's headline names the
    model's own top token at the query, and the model view says the final norm's 1/σ is held."""
    from attn_tui.core.heads.capture_check import token_label
    from attn_tui.core.models import MODELS, text
    from tests.core.textmodels import random_model, shipped

    if not shipped():
        m = random_model(tmp_path)
        monkeypatch.setattr(text, "shipped_text_model", lambda: m)
    s, ref = open_ref("text-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        run = app.state.head.source.run
        tok = int(np.argmax(run.logits[app.state.row]))
        label = token_label(MODELS["text-demo"].model().tokenizer.decode([tok]))
        shown = app.screen.query_one("#tokens-predict").plain
        assert shown.startswith(f"predicts {label!r} ") and "(attention-only, the final norm's 1/σ held;" in shown
        await _press(pilot, settle, "M")
        assert "the final norm's 1/σ at this position held fixed" in app.screen.query_one("#model-predict").plain


async def test_after_a_token_is_deleted_neither_view_shows_the_models_own_row(settle):
    """Review: after D, the token view said "predicts ..." for the token that had been at that row, and the
    model view's title named one token while its lines were another's; both now say why they show nothing,
    `n` refuses, and ctrl+z brings the prediction back."""
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        T = app.state.scenario.T
        await _press(pilot, settle, "D")
        assert app.state.scenario.T == T - 1
        await _press(pilot, settle, "T")
        block = app.screen.query_one("#tokens-predict").plain
        assert f"the model read {T} tokens and {T - 1} are here (a token deleted)" in block
        assert "predicts" not in block
        before = (app.state.head.layer, app.state.head.head)
        await _press(pilot, settle, "n")
        assert (app.state.head.layer, app.state.head.head) == before  # refused: nothing to rank
        await _press(pilot, settle, "M")
        assert isinstance(app.screen, ModelScreen)
        assert "a token deleted" in app.screen.query_one("#model-predict").plain
        assert app.screen.query_one("#model-heads").plain == ""
        await _press(pilot, settle, "ctrl+z")
        assert app.state.scenario.T == T
        await pilot.app.screen.workers.wait_for_complete()
        await settle(pilot)
        assert "▶ " in app.screen.query_one("#model-predict").plain  # the model's own heads and parts again

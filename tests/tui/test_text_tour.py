"""The tour's page from the lesson's single head to text-demo's heads: its numbers are the core's (the
readings and the model's own logits), its try-it opens the token view on the sentence, on the
induction head, at the position it names. The shipped model when it ships, else random weights."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads import layer_readings, open_heads
from attn_tui.core.numfmt import fit_number
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.tokens import TokensScreen
from attn_tui.tui.screens.tour import TourScreen
from attn_tui.tui.views.text_tour import copyable, measured, text_page
from tests.core.textmodels import text_demo_model


@pytest.fixture
def text_model(monkeypatch, tmp_path):
    return text_demo_model(monkeypatch, tmp_path)


def test_copyable_positions_are_where_an_earlier_copy_says_what_comes_next():
    assert copyable([5, 6, 7, 5, 6, 8, 5]) == (3,)  # 5 then 6 seen at 0-1; the last 5 ends the text
    assert copyable([1, 2, 3]) == ()


def test_the_page_names_the_heads_and_predictions_the_core_computes(text_model):
    text = text_page()
    src = open_heads("text-demo")
    readings = [r for ly in range(src.n_layers) for r in layer_readings(src, ly)]
    prev = max(readings, key=lambda r: r.prev_token)
    ind = max(readings, key=lambda r: r.induction)
    assert f"layer {prev.layer}, head {prev.head}, its strongest previous-token head: mean A[t, t−1] = " in text
    assert f"layer {ind.layer}, head {ind.head}, its strongest induction head" in text
    assert fit_number(prev.prev_token, 4) in text and fit_number(ind.induction, 4) in text
    ids, top = src.run.ids, src.run.logits.argmax(-1)
    where = [t for t in range(src.T - 1) if any(ids[j] == ids[t] and ids[j + 1] == ids[t + 1] for j in range(t))]
    hits = [t for t in where if top[t] == ids[t + 1]]
    assert f"at the {len(where)} positions" in text and f"that token at {len(hits)}." in text
    m = measured()
    assert m.row == (hits or where)[-1] and f"query t{m.row + 1}," in text
    p = np.exp(src.run.logits[m.row] - src.run.logits[m.row].max())
    assert f"(p = {fit_number(float(p.max() / p.sum()), 4)})" in text


@pytest.mark.long
@pytest.mark.slow
async def test_try_it_opens_the_token_view_on_the_induction_head(settle, text_model):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TourScreen)
        while screen.page.key != "text":
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        await settle(pilot)
        m = measured()
        assert isinstance(app.screen, TokensScreen)
        ref = app.state.head
        assert ref.name == "text-demo" and (ref.layer, ref.head) == (m.induction.layer, m.induction.head)
        assert app.state.row == m.row and app.screen.query_one("#token-text").selected == m.row

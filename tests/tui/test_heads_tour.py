"""The tour's page on many heads: its numbers are the core's, its try-it opens the heads screen on
induction-demo with a repeated sequence, layer 1 sorted by the induction score."""

from __future__ import annotations

import pytest

from attn_tui.core.heads import combine, layer_readings, open_heads, sort_readings
from attn_tui.core.numfmt import fit_number
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.screens.tour import TourScreen
from attn_tui.tui.tour_text import PAGES
from attn_tui.tui.views.heads_tour import TOUR_TOKENS, heads_page


def test_the_page_names_the_heads_the_core_measures():
    text = heads_page()
    src = open_heads("induction-demo", TOUR_TOKENS)
    prev = sort_readings(layer_readings(src, 0), "prev_token")[0]
    ind = sort_readings(layer_readings(src, 1), "induction")[0]
    assert (
        f"layer 0, head {prev.head} is a previous-token head: mean A[t, t−1] = {fit_number(prev.prev_token, 4)}" in text
    )
    assert f"layer 1, head {ind.head} is an induction head" in text and fit_number(ind.induction, 4) in text
    assert f"log₂ t = {fit_number(ind.mean_ceiling_bits, 4)}" in text
    assert ind.mean_entropy_bits < ind.mean_ceiling_bits / 2 and prev.prev_token > 0.5 and ind.induction > 0.9
    assert fit_number(combine(src, 1).max_abs_diff, 7) in text
    # what's next, what a head moves, the same heads in a model of English, results
    assert [p.key for p in PAGES][-4:] == ["heads", "moves", "text", "results"]


@pytest.mark.long
@pytest.mark.slow
async def test_try_it_opens_the_heads_screen_on_the_repeat(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TourScreen)
        while screen.page.key != "heads":
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, HeadsScreen)
        assert app.state.head.source.tokens == tuple(TOUR_TOKENS.split())
        assert app.state.head.layer == 1 and app.screen.sort == "induction"
        best = sort_readings(layer_readings(open_heads("induction-demo", TOUR_TOKENS), 1), "induction")[0]
        first = app.screen.query_one("#head-tiles").tiles[0]
        assert (first.layer, first.head) == (1, best.head)

"""Predict, then reveal, on screen (issue 30): the box takes a prediction, enter reveals, s skips,
bad input gets one line and keeps the page, the last page lists the session, t lists the pages."""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pickers import ChoiceScreen
from attn_tui.tui.tour_text import PAGES
from attn_tui.tui.views.tour_view import page_text as page_text_of
from tests.tui.tour_pilot import goto, open_tour

SIZE = (120, 40)


def page_text(screen) -> str:
    return str(screen.query_one("#tour-text").render())


def screen_text(app) -> str:
    return app.export_screenshot()


@pytest.mark.slow
async def test_exercise_1_predict_then_reveal(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "ex1")
        h = builtin("lesson-handcrafted").with_(scaled=False).run().H[3]
        assert f"{h:.3g}" not in page_text(screen) and "Why: u" not in page_text(screen)
        box = screen.query_one("#tour-predict")
        assert box.display and app.focused is box
        await pilot.press("1", ".", "6", "enter")
        await settle(pilot)
        text = page_text(screen)
        assert f"Your prediction 1.6 bits · answer {h:.3g} bits" in text and "Why: u" in text
        assert ("ex1", 0) in screen.results and screen.results[("ex1", 0)].right == (abs(1.6 - h) <= 0.15)
        assert "▶ Predict (2 of 2)" in text and box.display  # the second question now
        await pilot.press("s")
        await settle(pilot)
        assert "Skipped · answer 2 (falls)" in page_text(screen) and not box.display
        assert app.focused is not box  # digits and letters are keys again


@pytest.mark.slow
async def test_bad_input_gets_one_line_and_the_page_is_kept(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "ex4")
        await pilot.press("7", "3", "comma", "7", "2", "8", "enter")  # the comma is not typed: a key
        await settle(pilot)
        assert screen.results[("ex4", 0)].prediction == 73728 and screen.results[("ex4", 0)].right
        box = screen.query_one("#tour-predict")
        before = page_text(screen)
        box.insert_text_at_cursor("98,304")  # pasted: the comma is in the box
        await pilot.press("enter")
        await settle(pilot)
        assert str(screen.query_one("#tour-msg").render()) == "',' not allowed: digits, '.', '-' and 'e' only"
        assert page_text(screen) == before and box.value == "98,304" and ("ex4", 1) not in screen.results
        box.clear()
        await pilot.press("enter")
        await settle(pilot)
        msg = str(screen.query_one("#tour-msg").render())
        assert msg == "type a prediction first (or s to skip)" and page_text(screen) == before
        await pilot.press("1", "e", "enter")
        await settle(pilot)
        assert "'1e' is not a number" in str(screen.query_one("#tour-msg").render())
        assert ("ex4", 1) not in screen.results and page_text(screen) == before and box.value == "1e"


async def test_no_exercise_shows_its_answer_before_a_prediction(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "ex4")
        await settle(pilot)
        shot = screen_text(app)
        for n in ("73,728", "73728", "98,304", "98304"):
            assert n not in shot
        await pilot.press("s")
        await settle(pilot)
        assert "73,728" in screen_text(app)  # revealed: the page and the cost lens now
        assert "98,304" not in page_text(screen)  # Q2 not answered yet
        await pilot.press("s")
        await settle(pilot)
        assert "98,304" in page_text(screen) and screen.query_one("#tour-params")
        assert "16,777,216" not in screen_text(app)  # exercise 5's table stays off exercise 4's page


@pytest.mark.slow
async def test_the_last_page_lists_the_session_and_contents_jump(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "scores")
        await pilot.press("3", "enter")
        await settle(pilot)
        await pilot.press("t")  # the contents
        await settle(pilot)
        toc = app.screen
        assert isinstance(toc, ChoiceScreen)
        assert toc.options[screen.index][1].endswith("[1/1 answered]")
        await pilot.press("end", "enter")
        await settle(pilot)
        assert app.screen is screen and screen.page.key == "results"
        assert screen.query_one("#tour-left").border_title == f"Tour {len(PAGES)}/{len(PAGES)}"
        text = page_text(screen)
        assert "1 predicted, 1 right, 0 skipped" in text
        assert "The score matrix S, Q1: Your prediction 3 · answer 3 · off by ±0" in text


@pytest.mark.slow
async def test_try_it_waits_for_a_prediction(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "ex2")
        before = app.state
        await pilot.press("y")
        await settle(pilot)
        assert app.current_mode == "tour" and app.state is before
        await pilot.press("0", ".", "4", "enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.current_mode == "pipeline" and app.state.scenario.mask == "none"


@pytest.mark.long
@pytest.mark.slow
async def test_the_question_is_visible_at_80x24_without_scrolling(settle):
    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_tour(pilot)
        for page in PAGES:
            await goto(pilot, screen, page.key)
            await settle(pilot)
            scroll, text = screen.query_one("#tour-scroll"), screen.query_one("#tour-text")
            shown = str(text.render())
            if page.questions:
                assert shown.startswith("▶ Predict") and page.questions[0].text.split()[0] in shown.split()[:6]
            else:
                assert shown.split()[:3] == page_text_of(page, {}).split()[:3]
            assert scroll.scroll_offset.y == 0
            visible = scroll.region.bottom - text.region.y  # the text's lines inside the scroll's view
            assert visible >= 3, page.key
            left = screen.query_one("#tour-left")
            assert left.border_title == f"Tour {screen.index + 1}/{len(PAGES)}" and left.region.y == 0


@pytest.mark.long
@pytest.mark.slow
async def test_the_training_page_measures_the_stall_off_the_event_loop(settle):
    from attn_tui.core.train import compare

    compare._MEASURED.clear()
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "train")
        assert "▶ Predict" in page_text(screen) and "median H" not in page_text(screen)
        await screen.workers.wait_for_complete()  # the two runs, measured off the event loop
        await settle(pilot)
        await pilot.press("2", "enter")
        await settle(pilot)
        lo = compare.measured(64)
        assert f"median H {lo['wrong_rows_median_H_bits']:.2f} bits" in page_text(screen)

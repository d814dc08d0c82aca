"""Issue 42 item 7: nothing shows an answer before its question is answered. The mask page's text
said "With it on, A should be lower-triangular" above its own question (the largest entry above the
diagonal with the mask on); exercise 4's try it opened the cost lens, whose "Doubling T quadruples
S" and table of S against T are exercise 5's answer, one page before it is asked."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.tour_questions import QUESTIONS
from attn_tui.tui.tour_text import PAGES
from tests.tui.tour_pilot import goto, open_tour

SIZE = (120, 40)


def test_the_mask_page_does_not_answer_its_own_question():
    page = next(p for p in PAGES if p.key == "mask")
    (question,) = QUESTIONS["mask"]
    hand = builtin("lesson-handcrafted").run().A
    assert question.answer() == pytest.approx(np.triu(hand, 1).max())  # 0: A is lower-triangular
    assert "lower-triangular" not in page.body()  # the answer, in words


@pytest.mark.long
@pytest.mark.slow  # walks to exercise 4
async def test_exercise_4s_try_it_shows_nothing_of_exercise_5s_answer():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "ex4")
        for _ in screen.page.questions:
            await pilot.press("s")
            await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        shown = app.export_screenshot()
        assert "quadruples" not in shown and app.current_mode != "lenses"
        ratio = QUESTIONS["ex5"][0].answer()  # 4: S grows as T²
        assert ratio == 4.0

"""Predict, then reveal (issue 30), without an app: every answer is the core's, no page text
holds its answer before a prediction, bad input gets one line, and the grading is honest."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import lenses
from attn_tui.core.builtins import builtin
from attn_tui.tui.quiz import Question, Result, grade, parse_prediction, result_line
from attn_tui.tui.tour_text import PAGES
from attn_tui.tui.views import reveals
from attn_tui.tui.views.tour_view import contents, open_index, page_text, panes, results_text

EXERCISES = tuple(p for p in PAGES if p.exercise)  # the tour's exercise pages

PAGE = {p.key: p for p in PAGES}


def run(name, **changes):
    return builtin(name).with_(**changes).run() if changes else builtin(name).run()


def answers(key):
    return [q.answer() for q in PAGE[key].questions]


def test_every_exercise_and_the_pipeline_pages_ask_first():
    assert all(p.questions for p in EXERCISES)
    for key in ("qkv", "scores", "scale", "mask", "softmax", "readA", "output", "rows", "rank"):
        assert PAGE[key].questions, key


def test_the_answers_are_the_cores():
    pipe, hand = run("lesson-pipeline"), run("lesson-handcrafted")
    assert answers("qkv") == [np.argmax(pipe.A[3]) + 1] == [1]
    assert answers("scores") == [pytest.approx(pipe.S[3, 0])] == [3]
    assert answers("scale") == [pytest.approx(run("lesson-pipeline", scaled=False).H[3])]
    assert answers("mask") == [0.0]
    assert answers("softmax") == [pytest.approx(2 ** pipe.H[4])]
    assert answers("readA") == [pytest.approx(hand.A[3, 0])]
    assert answers("output") == [pytest.approx(pipe.O[3, 0])]
    assert answers("rows") == [pytest.approx(pipe.A[4, 0])]
    assert answers("rank") == [np.linalg.matrix_rank(pipe.S)] == [2]
    doubled = run("exercise1-doubled").H[3]
    assert answers("ex1") == [pytest.approx(run("lesson-handcrafted", scaled=False).H[3]), 2.0]
    assert doubled < hand.H[3]  # so "falls" (2) is right
    assert answers("ex2") == [pytest.approx(run("lesson-handcrafted", mask="none").A[0, 0])]
    assert answers("ex3") == [2.0, 3.0]
    assert answers("ex4") == [lenses.param_count(384, 64, 64), lenses.param_count(384, 64, 64, with_output=True)]
    assert answers("ex4") == [73728, 98304]
    assert answers("ex5") == [4.0]


def test_the_cross_attention_shapes_answer_follows_the_trace():
    tr = run("cross-attention")
    assert tr.Q.shape[0] == tr.O.shape[0] == 5 and tr.K.shape[0] == tr.V.shape[0] == 3
    assert tr.S.shape == tr.A.shape == (5, 3)
    assert reveals.SHAPE_CHOICES[int(reveals.shapes_answer()) - 1].startswith("K, V, S and A")


@pytest.mark.parametrize("page", [p for p in PAGES if p.questions], ids=lambda p: p.key)
def test_no_page_shows_an_answer_before_a_prediction(page):
    before = page_text(page, {})
    for q in page.questions:
        assert q.reveal() not in before
    assert page.questions[0].text in before and "▶ Predict" in before
    if len(page.questions) > 1:  # the next question is posed only after the first
        assert page.questions[1].text not in before
    if page.after is not None:
        assert panes(page, {}) == page.panes != page.after


def test_exercise_4_and_5_numbers_are_not_on_their_pages_before_a_prediction():
    for key in ("ex4", "ex5"):
        text = page_text(PAGE[key], {})
        assert "73,728" not in text and "73728" not in text and "98,304" not in text and "98304" not in text
        assert "cost" not in panes(PAGE[key], {})  # the cost lens prints them: shown only after
    assert "FlashAttention still does all" not in page_text(PAGE["ex5"], {})


def test_after_a_prediction_the_page_shows_answer_prediction_and_why():
    page = PAGE["ex1"]
    results = {("ex1", 0): grade(page.questions[0], 1.2)}
    text = page_text(page, results)
    h = run("lesson-handcrafted", scaled=False).H[3]
    assert f"Your prediction 1.2 bits · answer {h:.3g} bits" in text
    assert page.questions[0].reveal() in text and "Why: u" in text
    assert open_index(page, results) == 1 and page.questions[1].text in text
    assert text.startswith("Q1: Your prediction 1.2 bits")  # the answer just given stays in sight
    assert text.index("▶ Predict (2 of 2)") < text.index("Q1.")  # then the open question, then the reveal


def test_skip_says_so_and_lists_on_the_last_page():
    page = PAGE["ex4"]
    results = {("ex4", 0): grade(page.questions[0], None), ("ex4", 1): grade(page.questions[1], 98304)}
    text = page_text(page, results)
    assert "Skipped · answer 73,728" in text and "Your prediction 98,304 · answer 98,304 · off by ±0 exactly ✓" in text
    last = page_text(PAGE["results"], results)
    assert last == results_text(results)
    assert "1 predicted, 1 right, 1 skipped" in last and "Exercise 4 — parameter counting, Q1: Skipped" in last
    assert panes(page, results) == page.after == ("params",)  # not the cost lens's exercise 5 table


def test_grading_uses_the_stated_tolerance():
    q = Question("x?", lambda: 0.5, lambda: "", "u", tol=0.05)
    assert grade(q, 0.54).right and grade(q, 0.46).right
    assert not grade(q, 0.56).right and not grade(q, 0.44).right
    assert "within ±0.05" in q.how_to_answer()
    exact = Question("n?", lambda: 73728.0, lambda: "", "l")
    assert grade(exact, 73728).right and not grade(exact, 73729).right
    assert "only if exact" in exact.how_to_answer()
    assert not Result(None, 1.0).right and Result(None, 1.0).skipped


@pytest.mark.parametrize(
    "typed, complaint",
    [
        ("", "type a prediction first"),
        ("73,728", "',' not allowed"),
        ("１２", "not allowed"),  # full-width digits: ASCII only
        ("1e", "is not a number"),
        ("--1", "is not a number"),
        ("1e999", "not a finite number"),
        ("abc", "not allowed"),
    ],
)
def test_bad_predictions_get_one_line_naming_what_is_wrong(typed, complaint):
    q = Question("x?", lambda: 1.0, lambda: "", "u", tol=0.1)
    value, error = parse_prediction(typed, q)
    assert value is None and complaint in error and "\n" not in error


def test_a_choice_takes_one_of_its_numbers():
    q = Question("which?", lambda: 2.0, lambda: "", "u", choices=("a", "b", "c"))
    assert parse_prediction("2", q) == (2.0, None)
    for bad in ("0", "4", "1.5"):
        value, error = parse_prediction(bad, q)
        assert value is None and "type 1–3" in error
    assert result_line(q, grade(q, 3)) == "Your choice 3 (c) · answer 2 (b): ✗"


def test_contents_lists_every_page_by_title_and_marks_the_exercises():
    rows = contents(PAGES, {("ex1", 0): grade(PAGE["ex1"].questions[0], None)})
    assert [i for i, _, _ in rows] == list(range(len(PAGES)))
    for (_, text, _), page in zip(rows, PAGES):
        assert page.title in text and (("exercise" in text) == page.exercise)
    assert "[exercise · 1/2 answered]" in rows[[p.key for p in PAGES].index("ex1")][1]


def test_the_doubled_reveal_says_a_tied_row_keeps_log2_k_bits():
    text = reveals.doubled_reveal()
    big = run("lesson-handcrafted", c=64.0).H[4]  # row 5 ties t1, t2, t4: the limit is log2 3
    assert big == pytest.approx(np.log2(3), abs=1e-6)
    assert "the hand-crafted row 5 ties 3 keys" in text and f"{np.log2(3):.2f} bits" in text
    assert f"{run('lesson-handcrafted').H[3]:.2f} → {run('exercise1-doubled').H[3]:.2f} bits" in text
    # c scales every score; the doubled diagonal does not, and breaks row 5's tie (issue 51): its own limit
    assert "however large its scores" not in text and "however far c goes" in text
    doubled = run("exercise1-doubled", c=64.0).H[4]
    assert doubled < np.log2(3) - 0.5 and f"row 5's tie there is 2 keys, and its H falls toward {doubled:.2f}" in text

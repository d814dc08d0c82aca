"""The tour's pages: the lesson's objectives, its sections in order, its exercises.

Each page has a short text in the lesson's words (built by views/teaching.py when the
page is drawn, its numbers computed by the core), the live panes shown beside it (names
the tour screen knows how to draw from the state) and, for an exercise, a "try it" that
sets up the scenario and screen the exercise needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from ..core.builtins import reading
from .tour_questions import QUESTIONS
from .views import heads_tour, teaching, text_tour, tour_passages, train_view


@dataclass(frozen=True)
class TryIt:
    """What "try it" does: load a built-in (or keep the scenario), change settings, go to a screen."""

    label: str
    builtin: str | None = None  # a built-in scenario name, or None to keep the current one
    changes: tuple = ()  # (key, value) pairs for Scenario.with_
    row: int | None = None  # the query row to select (0-based)
    mode: str = "pipeline"  # the screen to show afterwards
    pin: bool = False  # pin the scenario as loaded, before ``changes`` (P): the screen shows the difference


@dataclass(frozen=True)
class Page:
    key: str
    title: str
    body: Callable[[], str]  # the text, built when the page is drawn (views/teaching.py)
    panes: tuple  # names of live panes: grids "X", "Q", …, "chart", and the tour's LENS_PANES
    try_it: TryIt | None = None
    after: tuple | None = None  # the panes once every question is answered (None: the same); they hold answers
    intro: bool = False  # the text only leads to the question: once answered, the reveals replace it
    scenario: str | None = None  # the built-in its text and questions speak of (else its try it's, if any)

    @property
    def speaks_of(self) -> str | None:
        """The built-in this page's text and questions speak of: ``scenario``, else its try it's, else
        the first one its questions (text, choices, answers), then its text, read (None: they read none, or the
        page has no live panes to disagree with)."""
        if self.scenario or (self.try_it and self.try_it.builtin):
            return self.scenario or (self.try_it.builtin if self.try_it else None)
        return _read_by(self) if self.panes else None

    @property
    def text(self) -> str:
        """The page's text (no answer in it), its numbers computed by the core now."""
        return self.body()

    @property
    def questions(self) -> tuple:
        """Predict, then reveal: the page's questions, asked in order (tour_questions.py)."""
        return QUESTIONS.get(self.key, ())

    @property
    def exercise(self) -> bool:
        return self.key.startswith("ex")


@cache
def _read_by(page: Page) -> str | None:
    """The first built-in a page's questions, then its text, are computed from (core/builtins.py:reading):
    what the learner is asked about first."""
    with reading() as names:
        for q in page.questions:
            (q.text, q.options, q.answer())
        page.body()
    return names[0] if names else None


PAGES: tuple[Page, ...] = (
    Page("objectives", "Learning objectives", teaching.objectives, ("equation",)),
    Page("qkv", "Queries, keys, values", teaching.qkv, ("X", "Q", "K", "V")),
    Page(
        "scores",
        "The score matrix S",
        tour_passages.scores_intro,
        ("Q", "K"),
        after=("Q", "K", "S"),
        intro=True,
    ),
    Page("scale", "Why divide by √d_k", teaching.scale, ("chart", "H")),
    Page("mask", "The causal mask", teaching.mask, ("M",), after=("M", "A", "check")),
    Page("softmax", "Row-wise softmax: attention weights", teaching.softmax_page, ("A",), after=("A", "H")),
    Page(
        "readA",
        "Reading the hand-crafted A",
        tour_passages.read_a_intro,
        ("handQK",),
        TryIt("load the hand-crafted Q, K in the explorer, row 4", "lesson-handcrafted", row=3),
        after=("handA",),
        intro=True,
    ),
    Page("output", "The output O = A V", tour_passages.output_intro, ("A", "V"), after=("A", "V", "O"), intro=True),
    Page("rows", "The pipeline's other rows", tour_passages.rows_intro, ("Q", "K"), after=("A", "H"), intro=True),
    Page("receiver", "Lens: correlation receiver", teaching.receiver, ("corr", "S")),
    Page("lenses", "Lenses: kernel smoother, associative memory", teaching.lenses_page, ("nw", "memory")),
    Page("more", "Adaptive filter, the model, the KV cache", tour_passages.more_page, ("H",)),
    Page(
        "rank",
        "Rank: how many questions the queries ask",
        tour_passages.rank_intro,
        ("Q", "K"),
        after=("S", "rank"),
        intro=True,
    ),
    Page(
        "ex1",
        "Exercise 1 — the scale matters",
        teaching.ex1,
        ("S", "A", "H"),
        TryIt("the hand-crafted Q, K pinned, row 4: press u and read ΔH", "lesson-handcrafted", row=3, pin=True),
    ),
    Page(
        "ex2",
        "Exercise 2 — drop the mask",
        teaching.ex2,
        ("M", "A", "check"),
        TryIt(
            "the hand-crafted Q, K pinned with the causal mask, then no mask: ΔA, row 1",
            "lesson-handcrafted",
            (("mask", "none"),),
            row=0,
            pin=True,
        ),
    ),
    Page(
        "ex3",
        "Exercise 3 — self vs. cross",
        teaching.ex3,
        ("equation",),
        TryIt("load the cross-attention scenario (keys and values from Y)", "cross-attention", row=0),
        after=("equation", "K", "S"),
    ),
    Page(
        "ex4",
        "Exercise 4 — parameter counting",
        teaching.ex4,
        ("equation",),
        # the pipeline's W_V title counts W_Q + W_K + W_V live; not the cost lens, whose table of S
        # against T is exercise 5's answer, a page before it is asked
        TryIt("the pipeline: the W_V pane's title counts the parameters of W_Q, W_K and W_V here"),
        after=("params",),
    ),
    Page(
        "ex5",
        "Exercise 5 — complexity",
        teaching.ex5,
        ("equation",),
        TryIt("open the cost lens", mode="lenses"),
        after=("cost",),
    ),
    Page(
        "train",
        "Watch attention learn: why 1/√d_k matters for gradients",
        train_view.tour_page,
        (),
        TryIt("run the scaled-vs-unscaled comparison on the training screen", mode="train"),
    ),
    Page("takeaways", "Key takeaways", tour_passages.takeaways, ("equation",)),
    Page(
        "heads",
        "What's next: many heads, each measured",
        heads_tour.heads_page,
        (),
        TryIt("the heads screen on induction-demo, a sequence that repeats", mode="heads"),
    ),
    Page("moves", "What a head moves: weights times values", heads_tour.moves_page, ("A", "V", "O")),
    Page(
        "text",
        "From letters to English: the same heads in a model of text",
        text_tour.text_page,
        (),
        TryIt(
            "the token view on text-demo's sentence, on its induction head (i: a sentence of your own)", mode="tokens"
        ),
    ),
    Page("results", "Your predictions", lambda: "", ()),
)

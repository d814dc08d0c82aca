"""The tour's pages: the lesson's objectives, its sections in order, its exercises.

Each page has a short text in the lesson's words (built by views/teaching.py when the
page is drawn, its numbers computed by the core), the live panes shown beside it (names
the tour screen knows how to draw from the state) and, for an exercise, a "try it" that
sets up the scenario and screen the exercise needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .views import heads_tour, train_view
from .views import teaching as T


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

    @property
    def text(self) -> str:
        """The page's text, its numbers computed by the core now."""
        return self.body()


PAGES: tuple[Page, ...] = (
    Page("objectives", "Learning objectives", T.objectives, ("equation",)),
    Page("qkv", "Queries, keys, values", T.qkv, ("X", "Q", "K", "V")),
    Page("scores", "The score matrix S", T.scores, ("Q", "K", "S")),
    Page("scale", "Why divide by √d_k", T.scale, ("chart", "H")),
    Page("mask", "The causal mask", T.mask, ("M", "A")),
    Page("softmax", "Row-wise softmax: attention weights", T.softmax_page, ("A", "H")),
    Page(
        "readA",
        "Reading the hand-crafted A",
        T.read_a,
        ("handA",),
        TryIt("load the hand-crafted Q, K in the explorer, row 4", "lesson-handcrafted", row=3),
    ),
    Page("output", "The output O = A V", T.output, ("A", "V", "O")),
    Page("receiver", "Lens: correlation receiver", T.receiver, ("corr", "S")),
    Page("lenses", "Lenses: kernel smoother, associative memory", T.lenses_page, ("nw", "memory")),
    Page(
        "ex1",
        "Exercise 1 — the scale matters",
        T.ex1,
        ("S", "A", "H"),
        TryIt("the hand-crafted Q, K pinned, row 4: press u and read ΔH", "lesson-handcrafted", row=3, pin=True),
    ),
    Page(
        "ex2",
        "Exercise 2 — drop the mask",
        T.ex2,
        ("M", "A"),
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
        T.ex3,
        ("equation", "K", "S"),
        TryIt("load the cross-attention scenario (keys and values from Y)", "cross-attention", row=0),
    ),
    Page("ex4", "Exercise 4 — parameter counting", T.ex4, ("cost",), TryIt("open the cost lens", mode="lenses")),
    Page("ex5", "Exercise 5 — complexity", T.ex5, ("cost",), TryIt("open the cost lens", mode="lenses")),
    Page(
        "train",
        "Watch attention learn: why 1/√d_k matters for gradients",
        train_view.tour_page,
        (),
        TryIt("run the scaled-vs-unscaled comparison on the training screen", mode="train"),
    ),
    Page(
        "heads",
        "What's next: many heads, each measured",
        heads_tour.heads_page,
        (),
        TryIt("the heads screen on induction-demo, a sequence that repeats", mode="heads"),
    ),
)

EXERCISES = tuple(p for p in PAGES if p.key.startswith("ex"))

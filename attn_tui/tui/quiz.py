"""Predict, then reveal: a tour question, the learner's answer to it, and how far off it was.

Pure (no Textual): the tour screen keeps the results and draws the texts built here. A
question's answer is a function, called when the learner commits, so the number is the
core's at that moment, never a pasted one. A choice is answered by its number (1, 2, …), so
every prediction is typed with the same few keys.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

ALLOWED = frozenset("0123456789.-e")  # what a prediction may contain (swap for core.numparse when it lands)


@dataclass(frozen=True)
class Question:
    prompt: str | Callable[[], str]  # the question, in the lesson's words
    answer: Callable[[], float]  # the core's number (a choice: its 1-based number)
    reveal: Callable[[], str]  # the answer taught, numbers from the core, shown after a prediction
    why: str  # the one key that shows why, and what to look at
    tol: float = 0.0  # a number within ±tol of the answer is right
    choices: tuple | Callable[[], tuple] = ()  # non-empty: a choice, answered by its number
    unit: str = ""

    @property
    def text(self) -> str:
        return self.prompt() if callable(self.prompt) else self.prompt

    @property
    def options(self) -> tuple:
        return tuple(self.choices()) if callable(self.choices) else tuple(self.choices)

    @property
    def is_choice(self) -> bool:
        return bool(self.options)

    def how_to_answer(self) -> str:
        """The line under the question: what to type, and the tolerance it is checked with."""
        if self.is_choice:
            return f"Type 1–{len(self.options)}, enter. s skips (shows the answer)."
        within = "only if exact" if self.tol == 0 else f"within ±{num(self.tol)}{self.unit}"
        return f"Type a number, enter: right {within}. s skips (shows the answer)."


@dataclass(frozen=True)
class Result:
    """One question answered: the prediction (None: skipped) and the core's answer then."""

    prediction: float | None
    answer: float
    tol: float = 0.0

    @property
    def skipped(self) -> bool:
        return self.prediction is None

    @property
    def off(self) -> float | None:
        return None if self.prediction is None else self.prediction - self.answer

    @property
    def right(self) -> bool:
        return self.off is not None and abs(self.off) <= self.tol + 1e-9 * max(1.0, abs(self.answer))


def num(x: float) -> str:
    """A number as the page quotes it: whole numbers with thousands separators, others to 3 digits."""
    x = float(x)
    if math.isfinite(x) and x == round(x) and abs(x) < 1e15:
        return f"{int(round(x)):,}"
    return f"{x:.3g}" if abs(x) < 1e4 else f"{x:,.0f}"


def signed(x: float) -> str:
    return ("+" if x > 0 else "−" if x < 0 else "±") + num(abs(x))


def parse_prediction(text: str, question: Question) -> tuple[float | None, str | None]:
    """(value, None) or (None, one line naming what is wrong). ASCII digits, '.', '-', 'e' only."""
    raw = text.strip()
    if not raw:
        return None, "type a prediction first (or s to skip)"
    bad = sorted({c for c in raw if c not in ALLOWED})
    if bad:
        return None, f"{', '.join(repr(c) for c in bad)} not allowed: digits, '.', '-' and 'e' only"
    try:
        value = float(raw)
    except ValueError:
        return None, f"{raw!r} is not a number"
    if not math.isfinite(value):
        return None, f"{raw!r} is not a finite number"
    if question.is_choice:
        n = len(question.options)
        if value != int(value) or not 1 <= value <= n:
            return None, f"{raw!r} is not one of the choices: type 1–{n}"
    return value, None


def grade(question: Question, prediction: float | None) -> Result:
    """The core's answer now, against the prediction (None: skipped)."""
    return Result(prediction, float(question.answer()), 0.0 if question.is_choice else question.tol)


def _said(question: Question, x: float) -> str:
    if question.is_choice:
        return f"{int(x)} ({question.options[int(x) - 1]})"
    return num(x) + question.unit


def result_line(question: Question, r: Result) -> str:
    """'Your prediction 0.3 · answer 0.369 · off by −0.069: within ±0.05 ✓' (or skipped)."""
    answer = _said(question, r.answer)
    prediction, off = r.prediction, r.off
    if prediction is None or off is None:  # r.skipped (off is None just then)
        return f"Skipped · answer {answer}"
    if question.is_choice:
        return f"Your choice {_said(question, prediction)} · answer {answer}: " + ("right ✓" if r.right else "✗")
    verdict = "exactly ✓" if r.tol == 0 and r.right else ("✓" if r.right else "✗")
    band = "" if r.tol == 0 else f"; right within ±{num(r.tol)}{question.unit}"
    return f"Your prediction {_said(question, prediction)} · answer {answer} · off by {signed(off)}{band} {verdict}"

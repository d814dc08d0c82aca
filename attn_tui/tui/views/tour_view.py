"""What a tour page shows, given the learner's results so far: pure (no Textual).

results maps (page key, question index) to a quiz.Result. A page shows its open question
(the first without a result) on top, then the questions already answered with their reveals,
newest first, then the page's text; a question after the open one is not shown, and neither is
any reveal before its prediction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...core.builtins import BUILTINS, builtin
from ..quiz import Result, result_line

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.state import State


def open_index(page, results: Mapping) -> int | None:
    """The first question of ``page`` without a result, or None."""
    return next((i for i in range(len(page.questions)) if (page.key, i) not in results), None)


def panes(page, results: Mapping) -> tuple:
    """The live panes: those that hold an answer (page.after) only once every question is answered."""
    if page.after is not None and page.questions and open_index(page, results) is None:
        return page.after
    return page.panes


def _question_block(page, i: int) -> str:
    q = page.questions[i]
    n = len(page.questions)
    head = f"▶ Predict{f' ({i + 1} of {n})' if n > 1 else ''}: {q.text}"
    opts = [f"{k} {c}" for k, c in enumerate(q.options, 1)]
    one_line = "   " + " · ".join(opts)
    choices = ("\n" + one_line) if opts and len(one_line) <= 72 else "".join(f"\n   {o}" for o in opts)
    return f"{head}{choices}\n{q.how_to_answer()}"


def _answered_block(page, i: int, r: Result) -> str:
    q = page.questions[i]
    return f"Q{i + 1}. {q.text}\n{result_line(q, r)}\n\n{q.reveal()}\n\nWhy: {q.why}"


def page_text(page, results: Mapping) -> str:
    """The open question, the answered ones (newest first) with their reveals, the page's text."""
    if page.key == "results":
        return results_text(results)
    blocks = []
    k = open_index(page, results)
    done = [i for i in range(len(page.questions)) if (page.key, i) in results]
    if k is not None and done:  # the answer just given stays in sight above the next question
        last = done[-1]
        blocks.append(f"Q{last + 1}: {result_line(page.questions[last], results[(page.key, last)])} (why: below)")
    if k is not None:
        blocks.append(_question_block(page, k))
    blocks += [_answered_block(page, i, results[(page.key, i)]) for i in reversed(done)]
    if k is not None or not page.intro:
        blocks.append(page.text)
    return "\n\n".join(b for b in blocks if b)


def results_text(results: Mapping, pages=None) -> str:
    """The session's predictions, question by question, in tour order."""
    if pages is None:
        from ..tour_text import PAGES as pages
    lines, right, tried, skipped = [], 0, 0, 0
    for page in pages:
        for i, q in enumerate(page.questions):
            r = results.get((page.key, i))
            if r is None:
                continue
            lines.append(f"• {page.title}, Q{i + 1}: {result_line(q, r)}")
            tried += not r.skipped
            right += r.right
            skipped += r.skipped
    total = sum(len(p.questions) for p in pages)
    if not lines:
        return (
            f"No predictions yet this session. The tour asks {total} questions: b goes back, t lists the pages "
            "(the exercises marked)."
        )
    rest = total - tried - skipped
    head = f"This session: {tried} predicted, {right} right, {skipped} skipped, {rest} not yet asked."
    return head + "\n\n" + "\n".join(lines)


def contents(pages, results: Mapping) -> list[tuple[int, str, bool]]:
    """The tour's table of contents for a ChoiceScreen: (index, 'n  title  [exercise]  ✓ 1/2', True)."""
    rows = []
    for i, p in enumerate(pages):
        n = len(p.questions)
        done = sum((p.key, k) in results for k in range(n))
        mark = "exercise · " if p.exercise else ""
        asks = f"  [{mark}{done}/{n} answered]" if n else ("  [exercise]" if p.exercise else "")
        rows.append((i, f"{i + 1:>2}  {p.title}{asks}", True))
    return rows


def scene_note(page, state: State) -> str:
    """One line when the live panes show another scenario than the one the page speaks of (its
    ``speaks_of``: named, or the built-in its text and questions read): the scenario shown, its
    row's number there (H(A_t)), and how to load the page's. Empty when they agree (an edit of it
    keeps its title) or the page names none."""
    name = page.speaks_of
    if name is None:
        return ""
    spoken, shown = builtin(name), state.scenario
    if shown.title == spoken.title:
        return ""
    t = state.row + 1
    h = state.trace.H[state.row]
    loads = page.try_it and page.try_it.builtin == name
    how = "y loads it, once the question is answered" if loads else f"o opens {name}"
    return f"The panes show {short_name(shown)} (row {t}: H(A_{t}) = {h:.3f} bits); this page speaks of {name} ({how})."


def short_name(scenario: Scenario) -> str:
    """A scenario as the learner opens it: its built-in's name when it is one (an edit keeps the title),
    else its title, cut: the note must leave the question room at 80x24."""
    names = {builtin(n).title: n for n in BUILTINS}
    title = scenario.title
    return names.get(title) or (repr(title) if len(title) <= 40 else repr(title[:39] + "…"))

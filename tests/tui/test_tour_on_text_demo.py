"""The tour taken on text-demo (session 18, learner item 1): every page whose words name a lesson
scenario's tokens, sizes or the pipeline / hand-crafted example carries the line that says the panes
show another scenario and how to open the one spoken of, before and after its questions are answered.
Pages 2, 6, 8, 9 and 13 asked of "the pipeline 'mat was soft, it was'" beside text-demo's Q with no
such line."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from tests.core.textmodels import text_demo_model
from tests.tui.tour_pilot import open_tour

SIZE = (120, 40)


def _markers(name: str, phrase: str) -> set[str]:
    """Words that speak of built-in ``name``: its quoted tokens, its sizes, the lesson's phrase for it."""
    s = builtin(name)
    words = {f"'{str(t).strip()}'" for t in s.tokens if str(t).strip()}
    return words | {f"T = {s.T} tokens", f"d_k = {s.d_k})", phrase}


MARKERS = {
    "lesson-pipeline": _markers("lesson-pipeline", "pipeline"),
    "lesson-handcrafted": _markers("lesson-handcrafted", "hand-crafted"),
}


def _spoken(text: str) -> set[str]:
    return {name for name, words in MARKERS.items() if any(w in text for w in words)}


def _shown(screen) -> tuple[str, str]:
    text = str(screen.query_one("#tour-text", Static).render())
    return text, str(screen.query_one("#tour-try", Static).render())


@pytest.mark.slow  # walks the whole tour
async def test_every_page_naming_a_lesson_scenario_says_the_panes_show_text_demo(settle, monkeypatch, tmp_path):
    text_demo_model(monkeypatch, tmp_path)
    s, ref = open_ref("text-demo")
    app = AttentionApp(scenario=s, head=ref)
    checked = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_tour(pilot)
        while True:
            await settle(pilot)
            if screen.page.panes:  # a page with live panes, beside which its words must be true
                for _ in range(len(screen.page.questions) + 1):  # before, and after each answer
                    text, note = _shown(screen)
                    spoken = _spoken(text)
                    if spoken:
                        page = screen.index + 1
                        assert "The panes show" in note and "this page speaks of" in note, (page, note)
                        named = note.split("this page speaks of ")[1].split(" ")[0]
                        assert named in spoken or named not in MARKERS, (page, note)
                        assert "y loads it" in note or f"o opens {named}" in note, (page, note)
                        checked.append(page)
                    if screen.open_question is None:
                        break
                    await pilot.press("s")
                    await settle(pilot)
            if screen.page.key == "results":  # the last page
                break
            await pilot.press("n")
    assert {2, 6, 8, 9, 13} <= set(checked), sorted(set(checked))  # the reviewer's pages, each found by its words

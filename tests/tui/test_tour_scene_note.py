"""Issue 42 item 5: every tour page's panes show the scenario its text speaks of, or the page names
the scenario shown and the number there. Exercise 1 speaks of the hand-crafted Q, K ("Scaled, row 4
has H(A_4) = 1.87 bits") while its live entropy pane showed the pipeline's 0.763 until y."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.state import State
from attn_tui.tui.tour_text import PAGES
from attn_tui.tui.views.tour_view import scene_note
from tests.tui.tour_pilot import goto, open_tour

SIZE = (120, 40)


def _page(key):
    return next(p for p in PAGES if p.key == key)


def test_the_note_names_the_scenario_shown_and_its_number():
    pipe = State(builtin("lesson-pipeline"), row=3)
    note = scene_note(_page("ex1"), pipe)
    assert "show lesson-pipeline (row 4" in note and f"H(A_4) = {pipe.trace.H[3]:.3f} bits" in note
    assert "speaks of lesson-handcrafted" in note and "y loads it" in note
    title = "my own scenario, saved from the pipeline and edited by hand since"
    mine = pipe.with_scenario(title=title)  # not a built-in: its title, cut so the question keeps its room
    note = scene_note(_page("ex1"), mine)
    assert f"show {title[:39] + '…'!r} (row 4" in note and len(note) < 200
    hand = State(builtin("lesson-handcrafted"), row=3)
    assert scene_note(_page("ex1"), hand) == ""  # the panes show what the text speaks of
    assert scene_note(_page("ex1"), hand.with_scenario(scaled=False)) == ""  # an edit of it: the learner's own
    assert scene_note(_page("scale"), pipe) == "" and "o opens lesson-pipeline" in scene_note(_page("scale"), hand)


@pytest.mark.slow  # walks to exercise 1
async def test_exercise_1_says_what_its_panes_show_until_y(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "ex1")
        await settle(pilot)
        shown = str(screen.query_one("#tour-try", Static).render())
        h = app.state.trace.H[app.state.row]
        assert "The panes show lesson-pipeline" in shown and f"= {h:.3f} bits" in shown
        assert app.state.scenario.title == builtin("lesson-pipeline").title  # what the note names
        for _ in screen.page.questions:
            await pilot.press("s")
            await pilot.pause()
        await pilot.press("y")  # the hand-crafted Q, K, pinned, on the pipeline screen
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert "The panes show" not in str(screen.query_one("#tour-try", Static).render())

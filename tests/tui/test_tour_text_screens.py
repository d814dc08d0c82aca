"""Issue 16 on screen: the corrected texts are where the learner reads them.

The tour's hand-crafted-A page, the correlation-receiver lens on the lenses screen, the
experiments screen's RNG note with the lesson's printed figures, and the help's answer
to exercise 1, each checked against the core's numbers.
"""

from __future__ import annotations

import pytest
from rich.console import Console

from attn_tui.core import experiments
from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.lenses import LensesScreen
from attn_tui.tui.screens.tour import TourScreen
from attn_tui.tui.views.lenses import PANELS
from attn_tui.tui.widgets.lens_panels import with_help

SIZE = (120, 40)


def text(renderable, width: int = 200) -> str:
    with open("/dev/null", "w") as sink:
        con = Console(width=width, record=True, file=sink)
        con.print(renderable)
        return con.export_text()


@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
async def test_tour_reads_the_hand_crafted_a_whatever_the_app_shows(settle):
    app = AttentionApp()  # the pipeline, not the hand-crafted Q, K
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TourScreen)
        while screen.page.key != "readA":
            await pilot.press("n")
            await pilot.pause()
        A = builtin("lesson-handcrafted").run().A
        page = str(screen.query_one("#tour-text").render())
        assert f"Row 4 puts {A[3, 0]:.2f} on t1" not in page  # not before a prediction
        await pilot.press("0", ".", "4", "enter")
        await settle(pilot)
        page = str(screen.query_one("#tour-text").render())
        assert f"Row 4 puts {A[3, 0]:.2f} on t1" in page
        pane = text(screen.query_one("#tour-handA").content)
        assert f"{A[4, 0]:.3f}" in pane and f"{A[1, 0]:.3f}" in pane
        assert app.state.scenario.title.startswith("Lesson 08: the full pipeline")
        await pilot.press("y")  # try it: the same matrix in the explorer
        await settle(pilot)
        assert app.current_mode == "pipeline" and app.state.row == 3
        assert (app.state.trace.A == A).all()


@pytest.mark.slow
async def test_the_scale_page_keys_work_where_it_says(settle):
    """The entropy-knob page: ↓ picks a later row, + then lowers its H (row 1 stays at 0)."""
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.set_state(app.state.with_(row=0))
        await pilot.press("t")
        await settle(pilot)
        screen = app.screen
        while screen.page.key != "scale":
            await pilot.press("n")
            await pilot.pause()
        assert "on row 1, press ↓" in str(screen.query_one("#tour-text").render())
        h1 = app.state.trace.H[0]
        await pilot.press("plus")
        await settle(pilot)
        assert app.state.trace.H[0] == h1 == 0.0  # row 1 does nothing, as the page says
        await pilot.press("down", "down", "down")
        await settle(pilot)
        assert app.state.row == 3
        before = app.state.trace.H[3]
        await pilot.press("plus")
        await settle(pilot)
        assert app.state.trace.H[3] < before


@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
async def test_the_receiver_page_and_the_lenses_screen_show_one_text(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.set_state(app.state.with_(row=3))
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LensesScreen)
        lens = text(app.screen.query_one("#lens-corr").content)  # its help, then the lens
        assert "peak 't1 mat' (3.000), margin 3.000 over the 3 runners-up" in lens
        await pilot.press("t")
        await settle(pilot)
        tour = app.screen
        while tour.page.key != "receiver":
            await pilot.press("n")
            await pilot.pause()
        assert text(with_help(PANELS["lens-corr"][2], tour.query_one("#tour-corr").content)) == lens


@pytest.mark.slow
async def test_experiments_show_the_rng_note_and_the_lessons_figures(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        note = str(screen.query_one("#var-note").render())
        assert "not the lesson's generator" in note
        assert "seeds 8, 9, 10, 11 for d_k = 4, 64, 512, 128; 8 for the saturation row, 16 for the sweep" in note
        table = text(screen.query_one("#var-table").content)
        assert "the lesson" in table and "printed" in table and "0.986" in table
        mine = experiments.variance((4,), 5000, 8)[0]["ratio"]
        assert f"{mine:.3f}" in table
        sat = text(screen.query_one("#sat-table").content)
        assert "the lesson printed" in sat and "0.524" in sat
        sweep = str(screen.query_one("#sweep-compare").render())
        assert "the lesson printed 3.00, 2.26, 0.17 bits" in sweep


async def test_help_answers_exercise1_with_the_cores_numbers(settle):
    from attn_tui.tui.screens.help import help_markdown

    s = builtin("lesson-handcrafted")
    raw = s.with_(scaled=False).run().H
    md = help_markdown()
    assert "/".join(f"{h:.2f}" for h in raw) in md
    assert "rows saturate" not in md and "saturated rows" not in md
    assert "weighted mix of every token's value" not in md and "does not saturate" not in md
    assert "tokens 1..t under the causal mask" in md


async def test_at_80x24_the_tour_text_scrolls_from_the_keyboard():
    """Review: the text box of a long page was cut with no key to scroll it (only the mouse wheel)."""
    from attn_tui.tui.app import AttentionApp

    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("t")
        await pilot.pause()
        text = app.screen.query_one("#tour-scroll")
        assert text.max_scroll_y > 0  # the objectives page is longer than its box at 80×24
        row = app.state.row
        await pilot.press("tab", "down", "down")
        await pilot.pause()
        assert text.has_focus and text.scroll_y > 0 and app.state.row == row  # the text moved, not the row

"""Pilot and snapshot tests of the tour (`t`): every page, every exercise's try-it."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.lenses import LensesScreen
from attn_tui.tui.tour_text import PAGES
from attn_tui.tui.widgets.matrix_grid import MatrixGrid
from tests.tui.tour_pilot import goto, open_tour

EXERCISES = tuple(p for p in PAGES if p.exercise)  # the tour's exercise pages

SIZE = (120, 40)
ORDER = [
    "objectives",
    "qkv",
    "scores",
    "scale",
    "mask",
    "softmax",
    "readA",
    "output",
    "rows",
    "receiver",
    "lenses",
    "more",
    "rank",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "ex5",
    "train",
    "takeaways",
    "heads",
    "moves",
    "text",
    "results",
]


async def skip_all(pilot, screen) -> None:
    """Skip the page's questions (one s each): the page then shows its answers."""
    for _ in screen.page.questions:
        await pilot.press("s")
        await pilot.pause()
    assert screen.open_question is None


def test_pages_follow_the_lesson_order_and_each_exercise_has_a_try_it():
    assert [p.key for p in PAGES] == ORDER
    assert [p.key for p in EXERCISES] == ["ex1", "ex2", "ex3", "ex4", "ex5"]
    objectives = PAGES[0].text
    assert "correlation receiver" in objectives and "1/√d_k" in objectives
    # the lesson's five objectives in full, the two once dropped included
    assert objectives.count("\n• ") == 5
    assert "verify the resulting attention matrix is lower-triangular" in objectives
    assert "read a hand-built attention matrix entry by entry" in objectives
    assert all(p.try_it is not None for p in EXERCISES)


@pytest.mark.long
@pytest.mark.slow  # walks every page of the tour
async def test_space_n_and_b_walk_every_page():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        seen = [screen.page.key]
        for i in range(len(PAGES) + 2):  # two extra presses stay on the last page
            await pilot.press("space" if i % 2 else "n")
            await pilot.pause()
            if screen.page.key != seen[-1]:
                seen.append(screen.page.key)
            title = str(screen.query_one("#tour-title").render())
            assert screen.page.title in title
        assert seen == ORDER
        assert screen.query_one("#tour-left").border_title == f"Tour {len(PAGES)}/{len(PAGES)}"
        for _ in range(len(PAGES) + 1):
            await pilot.press("b")
            await pilot.pause()
        assert screen.page.key == "objectives"


@pytest.mark.long
@pytest.mark.slow
async def test_each_page_mounts_its_live_panes():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        for page in PAGES:
            await goto(pilot, screen, page.key)
            pane = screen.query_one("#tour-pane")
            grids = [w.matrix for w in pane.children if isinstance(w, MatrixGrid)]
            assert grids == [p for p in page.panes if len(p) <= 3 and p[0].isupper()]
            text = str(screen.query_one("#tour-text").render())
            if page.key != "results":  # the page's text, built when drawn (after its question)
                assert " ".join(page.text.split()[:6]) in " ".join(text.split())
            assert len(pane.children) == len(page.panes)
            await skip_all(pilot, screen)
            after = page.after if page.after is not None else page.panes
            assert len(screen.query_one("#tour-pane").children) == len(after)


async def test_live_panes_follow_the_scale_knob():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "scale")
        app.set_state(app.state.with_(row=3))
        await pilot.pause()
        h_grid = next(w for w in screen.query(MatrixGrid) if w.matrix == "H")
        before = float(h_grid.values[3, 1])
        await pilot.press("plus", "plus", "plus")
        await pilot.pause()
        assert app.state.scenario.c == pytest.approx(1.1**3)
        after = float(h_grid.values[3, 1])
        assert after < before  # sharper row, lower entropy
        assert after == pytest.approx(app.state.trace.H[3])


async def test_try_it_on_a_non_exercise_page_changes_nothing():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_tour(pilot)
        before = app.state
        await pilot.press("y")
        await pilot.pause()
        assert app.state is before and app.current_mode == "tour"


@pytest.mark.long
@pytest.mark.parametrize("key", ["ex1", "ex2", "ex3", "ex4", "ex5"])
@pytest.mark.slow  # one exercise per page, each a full setup
async def test_try_it_sets_up_each_exercise(key):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, key)
        before = app.state
        await pilot.press("y")  # predict first: try-it does nothing yet
        await pilot.pause()
        assert app.current_mode == "tour" and app.state is before
        await skip_all(pilot, screen)
        await pilot.press("y")
        await pilot.pause()
        s, tr = app.state.scenario, app.state.trace
        if key == "ex1":  # the baseline first: the hand-crafted Q, K at d_k = 4, scaled, row 4
            assert app.current_mode == "pipeline" and s.title.startswith("Lesson 08: hand-crafted")
            assert s.scaled and s.d_k == 4 and app.state.row == 3
            assert np.max(tr.S) == pytest.approx(2 * 1 / 2)  # q1·k1 = 2, /√4
            assert app.state.compared is not None  # pinned: u then shows ΔH against this baseline
            await pilot.press("u")
            await pilot.pause()
            h = app.screen.query_one("#grid-H")
            assert h.col_labels == ("H pin", "H", "ΔH") and (h.values[1:, 2] < 0).all()
        elif key == "ex2":
            assert app.current_mode == "pipeline" and s.mask == "none" and app.state.row == 0
            assert tr.A[0, 1:].sum() > 0  # token 1 now attends to the future
            assert app.state.pin.scenario.mask == "causal"  # pinned before the mask was dropped
            d = app.screen.query_one("#grid-A").values  # ΔA: row 1 gives weight to the future
            assert d[0, 0] < 0 and (d[0, 1:] > 0).all()
        elif key == "ex3":
            assert app.current_mode == "pipeline" and s.cross and s.T_k == 3 and tr.S.shape == (5, 3)
        elif key == "ex4":  # not the cost lens: its S-against-T table is exercise 5's answer
            assert app.current_mode == "pipeline" and app.state is before
            assert "params" in app.screen.query_one("#grid-W_V").border_title
        else:
            assert app.current_mode == "lenses" and isinstance(app.screen, LensesScreen)
            assert app.state is before  # the cost lens reads the scenario as it is
            cost = app.screen.query_one("#lens-cost")
            assert app.screen.query_one("#lenses-scroll").scroll_offset.y > 0 or cost.region.y < SIZE[1]
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is screen and screen.page.key == key  # the tour remembers its page


def test_labels_and_titles_with_brackets_are_text_not_markup():
    """Token labels and titles come from user files: "[/a]" must print, not raise MarkupError."""
    from rich.console import Console

    from attn_tui.core.builtins import builtin
    from attn_tui.tui.state import State
    from attn_tui.tui.views import lenses as lens_text
    from attn_tui.tui.views import lesson_panes

    s = builtin("lesson-pipeline").with_(title="[/oops] a [b]title", tokens=("[/a]", "[b]", "c]", "[d", "e"))
    st = State(s, row=3)
    con = Console(width=80, record=True, file=open("/dev/null", "w"))
    for build in (
        lens_text.nadaraya_watson,
        lens_text.memory,
        lens_text.box_kernel,
        lens_text.gradient,
        lesson_panes.correlation,
        lesson_panes.equation,
    ):
        con.print(build(st))
    out = con.export_text()
    assert "[/a]" in out and "[b]" in out and "[/oops]" in out

"""Issue 42 items 4 and 9: a grid's columns are not hidden while the page has room for them.

Item 4: in a browser at 800×500 (headless Chromium's page gave the app 88×26) A | O | H stayed on one line
with A's last column scrolled off, though the page scrolled anyway: when the page cannot be on one
screen, a row wraps its third pane to show its grids whole rather than hide columns.
At 60×20 A | O, wrapped, still hid columns: one pane a line shows each whole.
Item 9: at 200×60 a captured head (T = 20, no X or W panes) left Q | K with 75 empty columns
beside them while S and M, beside V, showed 8 of their 20 columns: a row of fewer than three
panes takes the next row's first pane when all then show whole."""

from __future__ import annotations

import pytest

from attn_tui.core.random_scenario import random_scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.pipeline_layout import MARGIN, PaneSize, join_rows, plan_row


def size(natural, least=None, full=10, short=6):
    return PaneSize(natural, least if least is not None else natural, full, short)


def hidden(grid) -> int:
    """Columns of the grid's content that do not fit its pane (they scroll)."""
    return max(0, grid.virtual_size.width - grid.scrollable_content_region.width)


def test_a_scrolling_page_wraps_a_row_rather_than_hide_columns():
    row = [size(38, 20), size(32, 20), size(26, 20)]
    line = plan_row(row, 79)
    assert line.mode == "line" and any(w < s.natural for w, s in zip(line.widths, row))
    whole = plan_row(row, 79, whole=True)
    assert whole.mode == "wrapped" and all(w >= s.natural for w, s in zip(whole.widths, row))
    # a wrap that would hide columns too gives way to one pane a line, when that shows each whole
    wide = [size(60, 20), size(60, 20), size(26, 20)]
    assert plan_row(wide, 79, whole=True).mode == "stacked"
    assert plan_row(wide, 79).mode == "line"  # the page fits the screen: lines first, as before
    # nothing shows whole: the usual preference stays
    huge = [size(100, 20), size(60, 20), size(26, 20)]
    assert plan_row(huge, 79, whole=True) == plan_row(huge, 79)


def test_a_short_row_takes_the_next_rows_first_pane_only_when_that_shows_more():
    sizes = {"Q": size(62), "K": size(62), "V": size(62), "S": size(146, 30), "M": size(146, 30)}
    rows = join_rows([["Q", "K"], ["V", "S", "M"]], sizes.__getitem__, 197)
    assert rows == [["Q", "K", "V"], ["S", "M"]]
    assert sum(sizes[n].natural for n in rows[0]) + 3 * MARGIN <= 197
    # not when the next row shows whole already, nor when the joined row would not fit whole
    small = {**sizes, "S": size(40), "M": size(40)}
    assert join_rows([["Q", "K"], ["V", "S", "M"]], small.__getitem__, 197) == [["Q", "K"], ["V", "S", "M"]]
    assert join_rows([["Q", "K"], ["V", "S", "M"]], sizes.__getitem__, 150) == [["Q", "K"], ["V", "S", "M"]]
    # a line of three takes a fourth; a fourth pane's row does not take a fifth
    three = {**sizes, "W_V": size(30)}
    assert join_rows([["W_V", "Q", "K"], ["V", "S", "M"]], three.__getitem__, 260)[0] == ["W_V", "Q", "K", "V"]
    four = join_rows([["W_V", "Q", "K", "X"], ["V", "S", "M"]], {**three, "X": size(5)}.__getitem__, 400)
    assert len(four[0]) == 4


async def assert_A_O_H_whole(size_) -> None:
    """The lesson at ``size_``: the page scrolls, A is in view on opening, A, O and H hide no column
    (also run by test_serve_page.py at the size headless Chromium's 800×500 page posts)."""
    from tests.tui.app_fixtures import settle_app as settle

    app = AttentionApp()
    async with app.run_test(size=size_) as pilot:
        await settle(pilot)
        grids = app.screen.grids
        assert app.screen.query_one("#pipeline").max_scroll_y > 0  # the page scrolls anyway
        assert {n: hidden(grids[n]) for n in ("A", "O", "H")} == {"A": 0, "O": 0, "H": 0}
        assert grids["A"].region.y >= 0 and grids["A"].region.bottom <= size_[1]  # A in view on opening


@pytest.mark.parametrize("size_", [(88, 26), (82, 25), (80, 24), (60, 20)])
async def test_the_browsers_800_by_500_shows_A_and_O_whole(size_):
    await assert_A_O_H_whole(size_)


async def test_a_captured_head_at_200_by_60_fills_the_width_and_shows_more_of_S(settle):
    scenario, ref = open_ref("induction-demo")
    seen = {}
    for size_ in ((120, 40), (200, 60)):
        app = AttentionApp(scenario, head=ref)
        async with app.run_test(size=size_) as pilot:
            await settle(pilot)
            grids = app.screen.grids
            assert grids["S"].values.shape[1] == 20 and hidden(grids["S"]) > 0  # too wide to show whole
            seen[size_] = {n: grids[n].scrollable_content_region.width - grids[n]._lw for n in ("S", "M", "A")}
            if size_ == (200, 60):
                lines = {}
                for g in grids.values():
                    if g.display:
                        lines.setdefault(g.region.y, []).append(g.region.right)
                # every line of panes reaches the right edge, give or take a cell
                assert all(max(rights) >= 200 - 12 for rights in lines.values()), lines
                assert grids["V"].region.y == grids["Q"].region.y  # V joined Q | K
    for n in ("S", "M"):
        assert seen[(200, 60)][n] >= 1.4 * seen[(120, 40)][n], seen


def columns_shown(grid) -> int:
    return (grid.scrollable_content_region.width - grid._lw) // (grid._w + 1)


async def test_a_scenario_of_16_tokens_at_200_by_60_puts_V_beside_Q_and_K(settle):
    """W_V | Q | K | V on one line (four panes, all whole), so S | M share a line of their own:
    beside V they showed 11 and 10 of their 16 columns, and now show 13 or more."""
    app = AttentionApp(scenario=random_scenario(T=16, d_model=16, seed=3))
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        grids = app.screen.grids
        assert {grids[n].region.y for n in ("W_V", "Q", "K", "V")} == {grids["Q"].region.y}
        assert all(hidden(grids[n]) == 0 for n in ("W_V", "Q", "K", "V"))
        assert grids["S"].region.y == grids["M"].region.y > grids["V"].region.y
        assert min(columns_shown(grids[n]) for n in ("S", "M")) >= 13, {n: columns_shown(grids[n]) for n in "SM"}


async def test_another_scenario_opens_on_A_as_a_launch_does(settle):
    """A random scenario of 16 tokens opened at 80×24 with X focused: the view stayed where X was
    (on K, then V | S), A and its selected row off screen. Now A has the focus and is in view."""
    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.grids["X"].focus()
        await settle(pilot)
        assert app.open_scenario(random_scenario(T=16, d_model=16), "random") is None
        await settle(pilot)
        A = app.screen.grids["A"]
        assert app.focused is A
        assert A.region.y >= 0 and A.region.y + 3 <= 24 - 2, A.region  # its title, header and a row above the bars
        app.screen.grids["X"].focus()  # an edit of the same scenario keeps the focus where it is
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert app.focused is app.screen.grids["X"]


@pytest.mark.parametrize("size_", [(20, 6), (40, 12)])
async def test_a_pane_taller_than_the_page_opens_with_its_selected_row_in_view(size_, settle):
    """induction-demo opens on t11: at 40×12 the page showed A's t1..t8 (A at its top), the selected
    row below. Now the page goes on down A until that row is in view."""
    scenario, ref = open_ref("induction-demo")
    app = AttentionApp(scenario, head=ref)
    async with app.run_test(size=size_) as pilot:
        await settle(pilot)
        A, page = app.screen.grids["A"], app.screen.query_one("#pipeline")
        assert app.focused is A and A.outer_size.height > page.scrollable_content_region.height
        line = A.content_region.y + 1 + app.state.row - int(A.scroll_offset.y)  # the selected row, on screen
        view = page.scrollable_content_region
        assert view.y <= line < view.bottom, (line, view, A.region)

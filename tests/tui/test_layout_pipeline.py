"""Layout of the pipeline screen: rows shrink, wrap and stack; A and O stay on screen; titles fit.

Issue 3's goal: at 120×40 a learner sees X → Q, K, V and S → A → O on one screen, also
with T = 6 or 9, a 12-character token label, or a value of 500000 in X.
"""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pipeline_layout import MARGIN, PaneSize, plan_row, title_width
from attn_tui.tui.widgets.matrix_grid import fit_label

ROW_NAMES = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V", "S", "M", "A", "O", "H")


# -- the planner (pure) --------------------------------------------------------
def size(natural, least=None, full=10, short=6):
    return PaneSize(natural, least if least is not None else natural, full, short)


def test_a_row_that_fits_keeps_natural_widths_and_full_titles():
    plan = plan_row([size(30), size(30), size(30)], 120)
    assert plan.mode == "line" and plan.widths == (30, 30, 30) and all(plan.full_titles)


def test_a_pane_is_widened_for_its_full_title_when_there_is_room():
    plan = plan_row([size(20, full=30), size(20)], 120)
    assert plan.widths == (30, 20)


def test_a_slightly_too_wide_row_shrinks_its_widest_pane_and_stays_one_line():
    plan = plan_row([size(33, 20), size(46, 20), size(52, 20)], 119)
    assert plan.mode == "line"
    assert sum(plan.widths) + MARGIN * 3 <= 119
    assert plan.widths[0] == 33 and plan.widths[2] < 52  # the narrow pane is untouched


def test_shrinking_never_goes_below_least_then_the_row_wraps_then_stacks():
    wrapped = plan_row([size(40, 35), size(38, 35), size(30, 30)], 80)
    assert wrapped.mode == "wrapped" and sum(wrapped.widths[:2]) + 2 * MARGIN <= 80
    stacked = plan_row([size(60, 50), size(60, 50), size(60, 50)], 80)
    assert stacked.mode == "stacked" and max(stacked.widths) <= 79
    tiny = plan_row([size(60, 50), size(60, 50), size(60, 50)], 40)
    assert tiny.mode == "stacked" and all(w <= 39 for w in tiny.widths)


def test_short_titles_when_full_ones_do_not_fit():
    s_pane = size(18, 14, full=title_width("S = c·QKᵀ/√d_k (5×5)"), short=title_width("S (5×5)"))
    a_pane = size(18, 14, full=title_width("A = softmax(S + M) (5×5)"), short=title_width("A (5×5)"))
    plan = plan_row([s_pane, a_pane], 46)  # room for one full title (22 + 18 + 2 margins)
    assert plan.mode == "line" and plan.full_titles == (True, False) and plan.widths == (22, 18)
    plan = plan_row([s_pane, a_pane], 36)
    assert plan.full_titles == (False, False) and sum(plan.widths) <= 34


def test_labels_longer_than_eight_end_in_an_ellipsis():
    assert fit_label("t1 mat") == "t1 mat"
    assert fit_label("t1 abcdefghijkl") == "t1 abcd…" and len(fit_label("t1 abcdefghijkl")) == 8


# -- the screen ----------------------------------------------------------------
def assert_titles_fit(app) -> None:
    for name in ROW_NAMES:
        grid = app.screen.query_one(f"#grid-{name}")
        if grid.display:
            assert len(str(grid.border_title)) + 2 <= grid.size.width, (name, grid.border_title, grid.size)


def rows_modes(app) -> dict:
    return dict(app.screen.row_modes)


async def test_default_lesson_pipeline_fits_120x40_in_one_line_per_row(settle, on_screen):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert set(rows_modes(app).values()) == {"line"}
        for name in ROW_NAMES:
            assert on_screen(app, name), name
        status = app.screen.query_one("#status").region
        assert on_screen(app, "A") and app.screen.query_one("#chart").region.bottom <= status.y
        assert status.y == 38 and app.screen.query_one("#keybar").region.y == 39  # at the bottom
        assert_titles_fit(app)


@pytest.mark.parametrize("T", [6, 9])
async def test_more_tokens_keep_A_and_O_on_the_first_screen(T, settle, on_screen):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(T - 5):
            await pilot.press("a")
        await settle(pilot)
        assert app.state.scenario.T == T
        assert "stacked" not in rows_modes(app).values()
        for name in ("X", "Q", "K", "V", "S", "A", "O"):
            assert on_screen(app, name), (name, T)
        assert_titles_fit(app)


async def test_a_twelve_character_label_keeps_the_rows_and_A_O_on_screen(settle, on_screen, make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n", "ctrl+a", "ctrl+k", *"abcdefghijkl", "enter")
        await settle(pilot)
        assert "abcdefghijkl" in app.state.scenario.tokens[0]
        assert "stacked" not in rows_modes(app).values()
        assert on_screen(app, "A") and on_screen(app, "O") and on_screen(app, "H")
        grid = app.screen.query_one("#grid-A")
        assert grid.render_line(1).text.startswith(fit_label(app.state.scenario.tokens[0]))


async def test_a_value_of_500000_in_X_keeps_A_and_O_on_screen_and_every_number_whole(settle, on_screen):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        X = app.state.scenario.X.copy()
        X[1, 1] = 500000
        app.set_state(app.state.with_scenario(X=X))
        await settle(pilot)
        assert "stacked" not in rows_modes(app).values()
        for name in ("X", "Q", "S", "A", "O"):
            assert on_screen(app, name), name
        assert "500000" in app.screen.query_one("#grid-X").render_line(2).text
        assert_titles_fit(app)


@pytest.mark.parametrize("name", sorted(BUILTINS))
async def test_every_builtin_has_titles_that_fit_at_120x40(name, settle, on_screen):
    app = AttentionApp(scenario=builtin(name))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert_titles_fit(app)
        assert on_screen(app, "A")


@pytest.mark.slow
async def test_grids_show_numbers_at_40x12_and_resizing_does_not_crash(settle, make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for w, h in ((40, 12), (80, 24), (61, 17), (200, 60), (40, 12)):
            await pilot.resize_terminal(w, h)
            await settle(pilot)
            grid = app.screen.query_one("#grid-A")
            assert grid.size.width <= w
            lines = [grid.render_line(y).text for y in range(grid.size.height)]
            assert any("1.000" in ln for ln in lines) and not any("…" in ln[8:] for ln in lines)
            bar = app.screen.query_one("#keybar").render_line(0).text
            assert "? Help" in bar and "^p palette" in bar, (w, bar)
            assert "row t1 mat" in app.screen.query_one("#status").render_line(0).text


async def test_a_resize_keeps_the_focused_pane_in_view_and_enlarging_goes_back_to_the_top(settle, on_screen):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        page = app.screen.query_one("#pipeline")
        assert app.focused.id == "grid-A" and page.scroll_y == 0
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert page.scroll_y > 0 and on_screen(app, "A")
        await pilot.resize_terminal(40, 12)  # rows stack: A's title line too stays in view
        await settle(pilot)
        assert on_screen(app, "A")
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert page.scroll_y == 0 and on_screen(app, "X") and on_screen(app, "A")


@pytest.mark.slow
async def test_capped_grids_keep_the_selected_row_in_view(settle, on_screen):
    """T = 64 at 120×40: every row-linked grid scrolls to the selected row (none hides it
    behind its horizontal scrollbar)."""
    from attn_tui.bench import random_scenario

    app = AttentionApp(scenario=random_scenario(64))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(10):
            await pilot.press("j")
        await settle(pilot)
        label = app.state.scenario.tokens[app.state.row]
        for name in ("X", "Q", "S", "M", "A", "O", "H"):
            grid = app.screen.query_one(f"#grid-{name}")
            rows = grid.scrollable_content_region.height
            lines = [grid.render_line(y).text for y in range(1, rows)]
            assert any(ln.startswith(label + " ") for ln in lines), (name, label, lines)
        assert on_screen(app, "A") and on_screen(app, "O")

"""The status line and the key bar on narrow screens; the tour's nav hint stays visible."""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.state import State
from attn_tui.tui.tour_text import PAGES
from attn_tui.tui.views.status import status_view
from attn_tui.tui.widgets.key_bar import priority
from attn_tui.tui.widgets.status import status_text


def test_status_keeps_the_row_and_c_first_and_fits_the_width():
    state = State(scenario=builtin("lesson-pipeline")).with_(row=3)
    for width in (120, 80, 60, 40):
        text = status_text(status_view(state), width).plain
        assert len(text) <= width, (width, text)
        assert "row t4 it" in text and "c=1.000" in text
    assert "f64" in status_text(status_view(state), 80).plain and "causal" in status_text(status_view(state), 80).plain
    assert state.scenario.title[:20] in status_text(status_view(state), None).plain  # the title, when there is room


def test_status_says_unscaled_and_nan_rows_even_when_short():
    state = State(scenario=builtin("padding-nan"))
    text = status_text(status_view(state), 60).plain
    assert "NaN" in text and "row " in text
    unscaled = State(scenario=builtin("lesson-pipeline").with_(scaled=False))
    assert "UNSCALED" in status_text(status_view(unscaled), 40).plain


def test_key_bar_priorities():
    assert priority("help") == 0
    assert priority("quit") > priority("do('knobs.scale_by', 1.1)")
    assert priority("switch_mode('pipeline')", "pipeline") > priority("switch_mode('tour')", "pipeline")
    assert 0 < priority("switch_mode('pipeline')", "lenses") < priority("do('knobs.scale_by', 1.1)", "lenses")


@pytest.mark.parametrize("key", ["l", "x", "T"])
async def test_the_way_home_is_on_the_key_bar_of_every_other_screen_at_40x12(key, settle):
    app = AttentionApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        bar = app.screen.query_one("#keybar").render_line(0).text
        assert " p Pipeline" in bar and "? Help" in bar and bar.rstrip().endswith("^p palette"), bar


@pytest.mark.parametrize("width,height", [(120, 40), (80, 24), (40, 12)])
async def test_status_and_key_bar_at_each_size(width, height, settle, make_app):
    app = make_app()
    async with app.run_test(size=(width, height)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j", "j")
        await settle(pilot)
        status = app.screen.query_one("#status").render_line(0).text
        bar = app.screen.query_one("#keybar").render_line(0).text
        assert "row t4 it" in status, status
        assert "? Help" in bar and "^p palette" in bar, bar
        if width >= 80:
            assert " t Tour" in bar and " T Tokens" in bar, bar  # the screens stay reachable
            assert "c=1.000" in status
        if width >= 120:
            assert " x " in bar, bar  # at 80x24 x Experiments gives way first (T Tokens stays)


@pytest.mark.slow
async def test_tour_nav_hint_is_visible_at_80x24_on_every_page(settle):
    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen = app.screen
        for _ in range(len(PAGES)):
            nav = screen.query_one("#tour-try")
            box = screen.query_one("#tour-left").region
            assert "n next · b back · t contents" in str(nav.render())  # the question pages add enter, s, esc
            assert nav.region.height >= 1 and box.contains_region(nav.region), (nav.region, box)
            assert nav.region.bottom <= 23
            await pilot.press("n")
            await pilot.pause()
        bar = screen.query_one("#keybar").render_line(0).text
        assert "? Help" in bar and "^p palette" in bar


@pytest.mark.parametrize("key,wide_id", [("l", "#lenses-grid"), ("x", "#exp-left")])
@pytest.mark.slow
async def test_lens_and_experiment_tables_scroll_sideways_at_40x12(key, wide_id, settle):
    """Below 60 columns the tables keep their width (numbers, not "3.9…") and scroll; resizing is safe."""
    app = AttentionApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert app.screen.query_one(wide_id).size.width >= 60
        for w, h in ((120, 40), (40, 12), (80, 24)):
            await pilot.resize_terminal(w, h)
            await settle(pilot)
        assert app.screen.query_one(wide_id).size.width >= 60


async def test_the_training_screen_neither_offers_nor_runs_the_explorer_knobs(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        bar = app.screen.query_one("#keybar").render_line(0).text
        assert "multiplier" not in bar and " Pin" not in bar and "Mask" not in bar and " row" not in bar, bar
        assert " n Step" in bar and " p Pipeline" in bar, bar
        before = app.state
        await pilot.press("plus", "m", "j", "P")
        await settle(pilot)
        assert app.state is before
        await pilot.press("p")
        await settle(pilot)
        bar = app.screen.query_one("#keybar").render_line(0).text
        assert "+/- multiplier ×÷" in bar, bar  # back in the explorer, the knobs are there again
        await pilot.press("plus")
        await settle(pilot)
        assert app.state.scenario.c == pytest.approx(1.1)


async def _bar(app, pilot, settle, key: str = "") -> str:
    if key:
        await pilot.press(key)
    await settle(pilot)
    return app.screen.query_one("#keybar").render_line(0).text


async def test_no_hint_names_a_key(settle):
    """The knob's hint was `+/- c ×÷1.1` and `c` is a key (cross-attention): no word of a hint is a key."""
    from attn_tui.tui.keys import all_keys
    from attn_tui.tui.keys_app import C_STEP

    single = {k for row in all_keys() for k in row.key.split(",") if len(k) == 1}
    app = AttentionApp()
    async with app.run_test(size=(200, 30)) as pilot:
        bar = await _bar(app, pilot, settle)
        assert "+/- multiplier ×÷" in bar and str(C_STEP) not in bar, bar  # the step: in the palette and help
    hints = {w for k in all_keys() if k.show for w in (k.bar or k.description).split()}
    assert not single & hints, sorted(single & hints)


@pytest.mark.parametrize("width", [80, 155, 200])
@pytest.mark.slow
async def test_each_bar_keeps_its_own_keys_and_not_the_shown_screens(width, settle):
    app = AttentionApp()
    async with app.run_test(size=(width, 30)) as pilot:
        bar = await _bar(app, pilot, settle)
        assert "p Pipeline" not in bar, bar  # the screen already shown
        lenses = await _bar(app, pilot, settle, "l")
        assert "z Box kernel" in lenses and "l Lenses" not in lenses, lenses
        experiments = await _bar(app, pilot, settle, "x")
        assert "r Run" in experiments and "x Experiments" not in experiments, experiments


async def test_plus_on_the_experiments_screen_leaves_c(settle, open_experiments):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_experiments(pilot)
        c = app.state.scenario.c
        await pilot.press("plus", "minus", "plus")
        await settle(pilot)
        assert app.state.scenario.c == c
        assert "×÷" not in app.screen.query_one("#keybar").render_line(0).text  # nor offered there

"""Pilot tests: every built-in renders (NaN rows, -inf in M, cross-attention T×T', Q/K
scenarios without X), big random scenarios scroll, and small or resized terminals don't crash."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.builtins import BUILTINS
from attn_tui.core.scenario import Scenario
from attn_tui.tui.app import AttentionApp


def random_scenario(T: int, d: int = 8, seed: int = 0) -> Scenario:
    rng = np.random.default_rng(seed)
    return Scenario(
        title=f"random T={T}",
        X=rng.normal(size=(T, d)),
        W_Q=rng.normal(size=(d, d)),
        W_K=rng.normal(size=(d, d)),
        W_V=rng.normal(size=(d, d)),
    )


@pytest.mark.parametrize("name", sorted(BUILTINS))
async def test_every_builtin_renders(make_app, name, grid_text):
    app = make_app(name)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus", "down", "m", "u")
        await pilot.pause()
        assert "Traceback" not in grid_text(app, "A")


async def test_padding_nan_shows_nan(make_app, grid_text, grid_cell):
    app = make_app("padding-nan")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert grid_cell(app, "A", 0, 0) == "NaN"
        assert grid_cell(app, "M", 0, 0) == "-inf"
        assert "NaN" in grid_text(app, "O")
        assert "NaN" in app.screen.query_one("#status").plain


async def test_float16_shows_minus_inf_in_M(make_app, grid_cell):
    app = make_app("float16-overflow")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert grid_cell(app, "M", 0, 1) == "-inf"  # -1e9 overflowed in float16
        assert grid_cell(app, "A", 3, 0) == "0.870"


async def test_handcrafted_has_no_X_or_W(make_app):
    app = make_app("lesson-handcrafted")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for name in ("X", "W_Q", "W_K", "W_V", "Y"):
            assert not app.screen.query_one(f"#grid-{name}").display
        assert app.screen.query_one("#grid-Q").display
        assert "V = I" in app.screen.query_one("#grid-V").border_title


async def test_cross_attention_grids_are_T_by_T_prime(make_app):
    app = make_app("cross-attention")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#grid-Y").display
        assert "(5×3)" in app.screen.query_one("#grid-A").border_title
        assert app.screen.query_one("#grid-A").values.shape == (5, 3)


@pytest.mark.long
@pytest.mark.slow
async def test_big_scenario_scrolls(make_app, grid_text):
    app = AttentionApp(scenario=random_scenario(256))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        grid = app.screen.query_one("#grid-A")
        assert grid.virtual_size.height == 257
        for _ in range(30):
            await pilot.press("down")
        await pilot.pause()
        assert app.state.row == 30
        assert grid.scroll_offset.y > 0  # the cursor row was scrolled into view
        assert "t31" in grid_text(app, "A")
        await pilot.press("plus")
        await pilot.pause()


@pytest.mark.long
@pytest.mark.parametrize("size", [(40, 12), (80, 24), (20, 6)])
@pytest.mark.slow
async def test_small_terminals_do_not_crash(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("tab", "tab", "plus", "down", "question_mark")
        await pilot.pause()
        await pilot.press("escape", "shift+tab", "u", "m")
        await pilot.pause()


@pytest.mark.slow
async def test_resizes_while_running(make_app, grid_cell):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for size in [(80, 24), (40, 12), (200, 60), (30, 8), (120, 40)]:
            await pilot.resize_terminal(*size)
            await pilot.press("plus", "down")
            await pilot.pause()
        assert grid_cell(app, "A", 3, 0) != ""


@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
async def test_every_pane_is_reachable_by_tab_at_80x24(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        seen = set()
        for _ in range(20):
            await pilot.press("tab")
            await pilot.pause()
            seen.add(app.focused.id)
            region = app.focused.region
            assert region.height > 0 and 0 <= region.y < 24  # scrolled into view
        want = {f"grid-{n}" for n in ("X", "W_Q", "W_K", "W_V", "Q", "K", "V", "S", "M", "A", "O", "H")}
        assert want | {"chart", "inspector"} <= seen


async def test_palette_offers_every_app_key(make_app):
    from attn_tui.tui.keys import KeyCommands, all_keys

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        provider = KeyCommands(app.screen)
        hits = [h async for h in provider.discover()]
        texts = " ".join(str(h.text) for h in hits)
        for k in all_keys():
            if k.scope == "app" and k.palette:
                assert k.description in texts
        await pilot.pause()


@pytest.mark.slow
async def test_chart_shows_the_heaviest_keys_that_fit_and_redraws_on_resize(settle):
    app = AttentionApp(scenario=random_scenario(64))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("j", "j", "j", "j", "j", "j", "j", "j", "j")  # row t10: ten open keys
        await settle(pilot)
        chart = app.screen.query_one("#chart")
        room = app.screen.query_one("#chart-probs").size.height - 2
        assert f"top {room}/10" in chart.border_title  # of the keys row t10 sees, not of T = 64
        assert "row t10" in chart.border_title
        await pilot.resize_terminal(80, 30)
        await settle(pilot)
        room2 = app.screen.query_one("#chart-probs").size.height - 2
        assert room2 != room and f"top {room2}/10" in chart.border_title


async def test_palette_on_the_training_screen_leaves_out_the_explorer_knobs(settle):
    from attn_tui.tui.keys import KeyCommands

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        texts = " ".join(str(h.text) for h in [h async for h in KeyCommands(app.screen).discover()])
        assert "c×" not in texts and "Rename token" not in texts, texts
        assert "Step" in texts and "Pipeline" in texts and "Help" in texts, texts

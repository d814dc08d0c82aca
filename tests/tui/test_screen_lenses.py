"""Pilot and snapshot tests of the lenses screen (`l`)."""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console

from attn_tui.core import lenses
from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.lenses import LensesScreen
from attn_tui.tui.views import lenses as lens_text

SIZE = (120, 40)


def text(renderable, width: int = 70) -> str:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))
    con.print(renderable)
    return con.export_text()


def panel_text(app, pid: str) -> str:
    """What panel ``pid`` shows (its help, then the lens; the rank panel's text part)."""
    panel = app.screen.query_one(f"#{pid}")
    return text((panel.query_one("#rank-text") if pid == "lens-rank" else panel).content)


async def open_lenses(pilot, row: int = 3):
    app = pilot.app
    await pilot.pause()  # let the pipeline settle: its grid cursor also selects a row
    app.set_state(app.state.with_(row=row))
    await pilot.press("l")
    await pilot.pause()
    assert isinstance(app.screen, LensesScreen)


async def test_l_opens_lenses_on_the_selected_row():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot)
        nw = panel_text(app, "lens-nw")
        assert "row t4 it" in nw
        assert "20.086" in nw  # κ = e^3 for mat
        diff = float(nw.split("max|NW − O| = ")[1].split()[0])
        assert 0 <= diff < 1e-12
        mem = panel_text(app, "lens-memory")
        assert "reads back 't1 mat' with 0.87 fidelity" in mem
        assert "rank S = 2" in panel_text(app, "lens-rank")
        cost = panel_text(app, "lens-cost")
        assert "73,728" in cost and "98,304" in cost and "= 72" in cost
        await pilot.press("p")
        await pilot.pause()
        assert app.current_mode == "pipeline"


@pytest.mark.slow
async def test_panels_follow_row_and_scale_keys():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot)
        await pilot.press("down")
        await pilot.pause()
        assert app.state.row == 4
        assert "row t5 was" in panel_text(app, "lens-nw")
        assert "matches two addresses, 't1 mat' and 't4 it'" in panel_text(app, "lens-memory")
        await pilot.press("plus")
        await pilot.pause()
        assert app.state.scenario.c == pytest.approx(1.1)
        assert "at c = 1.10" in panel_text(app, "lens-gradient")
        await pilot.press("0")
        await pilot.pause()
        assert "at c = 1.00" in panel_text(app, "lens-gradient")


async def test_z_zeroes_the_projections_and_gives_w_avg_exactly():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot)
        before = app.state.scenario.W_Q.copy()
        await pilot.press("z")
        await pilot.pause()
        s = app.state.scenario
        assert not s.W_Q.any() and not s.W_K.any()
        assert lenses.max_abs_diff(app.state.trace.A, lenses.prefix_average(s.T)) == 0.0
        assert "max|A − W_avg| over all of A = 0 (exactly)" in panel_text(app, "lens-box")
        await pilot.press("z")
        await pilot.pause()
        assert np.array_equal(app.state.scenario.W_Q, before)
        assert app.state.trace.A[3, 0] == pytest.approx(0.870, abs=5e-4)
        assert "0.620" in panel_text(app, "lens-box")


async def test_z_on_a_qk_scenario_zeroes_q_and_k():
    app = AttentionApp(scenario=builtin("lesson-handcrafted"))
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot)
        await pilot.press("z")
        await pilot.pause()
        s = app.state.scenario
        assert not s.Q.any() and not s.K.any()
        assert "Q = K = 0: ON" in panel_text(app, "lens-box")


@pytest.mark.long
@pytest.mark.parametrize("name", ["padding-nan", "float16-overflow", "cross-attention", "box-kernel"])
@pytest.mark.slow  # every built-in through every lens panel
async def test_every_builtin_draws_without_error(name):
    app = AttentionApp(scenario=builtin(name))
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot, row=0)
        for _ in range(3):
            await pilot.press("down", "plus")
        await pilot.pause()
        assert isinstance(app.screen, LensesScreen)


@pytest.mark.slow
async def test_cross_attention_says_why_no_w_avg():
    app = AttentionApp(scenario=builtin("cross-attention"))
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot, row=1)
        assert "needs self-attention" in panel_text(app, "lens-box")


async def test_overflowing_kernel_is_explained_not_crashed():
    app = AttentionApp(scenario=builtin("lesson-pipeline").with_(scaled=False, c=500.0))
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot)
        assert "κ overflowed to inf" in panel_text(app, "lens-nw")


def test_memory_words_cover_hit_tie_and_spread():
    from attn_tui.tui.state import State

    st = State(builtin("lesson-pipeline"), row=3)
    assert "0.87 fidelity" in text(lens_text.memory(st))
    st = State(builtin("box-kernel"), row=3)
    assert "reads all 4 addresses it sees equally (0.250 each): no content preference" in text(
        lens_text.memory(st), 200
    )
    st = State(builtin("lesson-handcrafted"), row=3)
    assert "spreads its read over about 3.6" in text(lens_text.memory(st))
    # row 5: 0.237 on three addresses against 0.144 on two is a preference, not "no preference"
    words = text(lens_text.memory(State(builtin("lesson-handcrafted"), row=4)), width=200)
    assert "matches 3 addresses equally (0.237 each) and blends them; the other 2 get at most 0.144" in words
    assert "no content preference" not in words


def test_gradient_table_vanishes_as_c_grows():
    from attn_tui.tui.state import State

    rows = lenses.gradient_over_c(
        State(builtin("lesson-pipeline")).trace.S[3],
        ~State(builtin("lesson-pipeline")).trace.blocked[3],
        (0.5, 1, 2, 4, 8, 16),
    )
    grads = [r["max_grad"] for r in rows]
    assert grads[1] == pytest.approx(0.870 * 0.130, abs=1e-3)
    assert all(a > b for a, b in zip(grads[1:], grads[2:]))
    assert grads[-1] < 1e-15


async def test_a_long_random_sequence_keeps_tables_short_and_pages_scroll():
    from attn_tui.core.random_scenario import random_scenario

    app = AttentionApp(scenario=random_scenario(T=128, d_model=32, d_k=8, d_v=8, seed=3))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_lenses(pilot, row=100)
        nw = panel_text(app, "lens-nw")
        assert f"… {128 - lens_text.MAX_KEYS} more" in nw
        assert "rank S = 8" in panel_text(app, "lens-rank")  # bounded by d_k, not T
        scroll = app.screen.query_one("#lenses-scroll")
        assert scroll.scroll_offset.y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_offset.y > 0
        await pilot.press("pageup")
        await pilot.pause()
        assert scroll.scroll_offset.y == 0


async def test_lens_keys_are_in_the_palette_and_help():
    from attn_tui.tui import keys

    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_lenses(pilot)
        provider = keys.KeyCommands(app.screen)
        texts = [text for _k, text, _run in provider._rows()]
        assert any(t.startswith("Box kernel") for t in texts)
        assert any(t.startswith("Experiments") for t in texts) and any(t.startswith("Tour") for t in texts)

"""In the app: `m` refuses causal over a different key sequence; masked keys look masked
in the scores chart; the entropy ceiling of a row that sees no key is "—" in the table
and the chart; overflow NaN is explained as overflow; chart titles fit their pane."""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.diagnose import NO_CEILING
from attn_tui.core.random_scenario import random_scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.bar_values import score_bars
from attn_tui.tui.state import Refused, State
from attn_tui.tui.views.chart import key_labels


def test_toggle_mask_refuses_causal_over_another_sequence():
    st = State(builtin("cross-attention"))
    assert st.scenario.mask == "none" and st.scenario.T_k != st.scenario.T
    with pytest.raises(Refused, match="not offered"):
        st.toggle_mask()
    # self-attention still toggles both ways
    lesson = State(builtin("lesson-pipeline"))
    assert lesson.toggle_mask().scenario.mask == "none"
    assert lesson.toggle_mask().toggle_mask().scenario.mask == "causal"


async def test_m_in_cross_attention_keeps_none_and_says_why(settle):
    app = AttentionApp(scenario=builtin("cross-attention"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert app.state.scenario.mask == "none"
        notes = app.notes.messages()
        assert any("not offered" in n and "3 positions" in n for n in notes)


def test_score_bars_hide_masked_and_non_finite_keys():
    bars, power = score_bars([3.0, 0.0, float("inf"), 3.0], [False, False, False, True])
    assert bars == [3.0, 0.0, 0.0, 0.0] and power == 0
    assert key_labels(["t1", "t2", "t3", "t4"], [False, False, False, True], [3.0, 0.0, float("inf"), 3.0]) == [
        "t1     ",
        "t2     ",
        "t3 inf ",
        "t4 ×   ",
    ]
    bars, power = score_bars([1e300, 1.0], [False, False])
    assert power == 300 and bars[0] == pytest.approx(1.0)


async def test_masked_future_key_has_no_bar_in_the_scores_chart(settle, chart_lines, make_app):
    """Row t2 under causal masking: S[2,4] = 3.0 but key t4 is in the future."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        assert app.state.trace.S[1, 3] == pytest.approx(3.0)
        lines = chart_lines(app, "scores")
        t4 = next(ln for ln in lines if "t4" in ln)
        assert "×" in t4 and "█" not in t4
        t1 = next(ln for ln in lines if "t1" in ln)
        assert "█" in t1
        assert "█" not in next(ln for ln in chart_lines(app, "probs") if "t4" in ln)


async def test_window_blocked_key_has_no_bar(settle, chart_lines):
    app = AttentionApp(scenario=builtin("lesson-pipeline").with_(mask="window", window=2))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down", "down")  # row t5: keys t1..t3 blocked by the window
        await settle(pilot)
        assert app.state.trace.blocked[4, 0] and app.state.trace.S[4, 0] == pytest.approx(3.0)
        t1 = next(ln for ln in chart_lines(app, "scores") if "t1" in ln)
        assert "×" in t1 and "█" not in t1


async def test_no_visible_key_ceiling_is_a_dash_in_table_and_chart(settle, grid_cell, chart_lines):
    app = AttentionApp(scenario=builtin("padding-nan").with_(fill="-1e9"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert grid_cell(app, "H", 0, 0) == NO_CEILING
        assert grid_cell(app, "H", 1, 0) == "0.000"
        title = str(app.screen.query_one("SoftmaxChart").border_title)
        assert NO_CEILING in title and "nan" not in title.lower().replace("h=nan", "")
        assert "-inf" not in "".join(chart_lines(app, "probs"))


@pytest.mark.slow
async def test_overflow_nan_is_explained_as_overflow_on_screen(settle, float16_knob, chart_lines):
    app = AttentionApp(scenario=float16_knob())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = str(app.screen.query_one("#explain").render())
        assert "every key is masked" not in text
        assert "overflowed float16" in text and "overflow in float16" in text
        app.set_state(app.state.with_(row=1))
        await settle(pilot)
        assert "S overflow" in chart_lines(app, "probs")[0]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_chart_title_fits_its_pane(size, settle):
    app = AttentionApp(scenario=random_scenario(T=64, d_model=8, d_k=4, d_v=4, seed=1))
    async with app.run_test(size=size) as pilot:
        app.set_state(app.state.with_(row=63))  # row t64 sees all 64 keys: they do not fit
        await settle(pilot)
        chart = app.screen.query_one("SoftmaxChart")
        title = str(chart.border_title)
        assert "top" in title  # the title says which are shown
        assert len(title) <= chart.size.width - 4

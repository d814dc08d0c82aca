"""The softmax chart's plot titles are never dropped: plotext leaves out a title that does not fit
its canvas, and at row t9000 "A_t c=1.00 H=12.72/log₂9000=13.14" vanished; a shorter one is drawn."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.scenario import Scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.views.chart import chart_view


def plot_text(app, selector: str) -> str:
    plot = app.screen.query_one(selector)
    return "\n".join(plot.render_line(y).text for y in range(plot.size.height))


@pytest.mark.slow
async def test_a_far_row_keeps_a_title_over_its_weights(settle):
    rng = np.random.default_rng(9)
    T = 10000
    app = AttentionApp(scenario=Scenario(Q=rng.standard_normal((T, 2)), K=rng.standard_normal((T, 2))))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_state(app.state.with_(row=8999))
        await settle(pilot)
        text = plot_text(app, "#chart-probs")
        assert "A_t" in text and "H=" in text, text
        assert "row t9000" in plot_text(app, "#chart-scores")


async def test_the_lesson_s_rows_keep_the_full_title(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        t = app.state.row + 1
        assert f"A_t c=1.00 H={float(app.state.trace.H[t - 1]):.2f}/log₂{t}=" in plot_text(app, "#chart-probs")


async def test_a_title_too_long_for_the_plot_keeps_c_before_dropping_to_the_shortest(settle):
    """At 120×40, c = 10.83 on row t4: the full title does not fit; a middle form keeps c (and log₂4),
    where the title used to fall back to "A_t H=0.00" at once."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_state(app.state.with_scenario(c=1.1**25).with_(row=3))
        await settle(pilot)
        text = plot_text(app, "#chart-probs")
        h = f"{float(app.state.trace.H[3]):.2f}"
        assert "A_t c=10.83 H=0.00/log₂4=2.00" not in text  # the full form does not fit here
        assert f"A_t c=10.83 H={h} of 2.00 " in text and "/log₂4 " not in text, text  # no form reads as cut


def test_the_title_forms_go_from_longest_to_shortest():
    from attn_tui.tui.widgets.softmax_chart import fitting_title

    forms = ("A_t c=10.83 H=0.00 of 2.00", "A_t c=10.83 H=0.00", "A_t H=0.00")
    labels = ["t1 "]
    full = "A_t c=10.83 H=0.00/log₂4=2.00"
    assert fitting_title(full, forms, len(full) + 7, labels) == full
    assert fitting_title(full, forms, len(forms[0]) + 7, labels) == forms[0]
    assert fitting_title(full, forms, len(forms[1]) + 7, labels) == forms[1]
    assert fitting_title(full, forms, len(forms[1]) + 6, labels) == forms[2]
    assert fitting_title(full, forms, 5, labels) == forms[2]  # nothing fits: the shortest
    assert fitting_title("A_t NaN: S overflow", (), 5, labels) == "A_t NaN: S overflow"


async def test_the_scores_title_says_how_much_wider_its_axis_is(settle):
    """At c = 45.26 the scores' axis is 32× its opening one: "c·q·k/√d_k axis 32× wider  row t4" does not
    fit the 37-column plot, and plotext draws nothing for a title too long for its canvas: the row goes
    first (the border names it). The shortest form is the scores' words alone."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_state(app.state.with_scenario(c=1.1**40))
        await settle(pilot)
        text = plot_text(app, "#chart-scores")
        assert "c·q·k/√d_k axis 32× wider" in text.split("\n")[0], text
        assert chart_view(app.state).scores_plain == "c·q·k/√d_k"


@pytest.mark.slow
async def test_the_tour_charts_title_is_whole(settle):
    """Tour page 4's chart (34 columns at 120×40) was titled "A_t c=1.00 H=0.76/log₂4", read as cut."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t", "n", "n", "n")
        await settle(pilot)
        title = app.screen.query_one("#chart-probs").render_line(0).text.strip()
    assert title.startswith("A_t") and "/log₂" not in title.replace("/log₂4=2.00", ""), title
    assert title.endswith("=2.00") or title.endswith("of 2.00"), title

"""A weight (or score) that rounds to nothing at the chart's resolution draws no bar: plotext drew
every nonzero value over at least one column, so at c = 10.8 row t4's weights 8e-15 each showed a
bar like a real one. From half a column on, a bar is drawn."""

from __future__ import annotations

import numpy as np

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.bar_plot import plot_lines
from attn_tui.tui.widgets.softmax_chart import drawn


def bar_lines(app, selector: str) -> dict[str, str]:
    """{key label: the bar drawn on its line} of one chart."""
    plot = app.screen.query_one(selector)
    out = {}
    for y in range(plot.size.height):
        text = plot.render_line(y).text
        if text[:2] in ("t1", "t2", "t3", "t4", "t5"):
            out[text[:2]] = text[2:].replace("×", "").replace("▆", "█").strip()  # ▆: a bar under another key's
    return out


async def test_weights_that_round_to_nothing_draw_no_bar(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        bars = bar_lines(app, "#chart-probs")
        assert all("█" in bars[k] for k in ("t1", "t2", "t3", "t4")), bars  # 0.870 and three 0.043
        app.set_state(app.state.with_scenario(c=1.1**25).with_(row=3))
        await settle(pilot)
        A = app.state.trace.A[3]
        assert 0 < A[1] < 1e-12 and A[1] == A[2] == A[3]
        bars = bar_lines(app, "#chart-probs")
        assert "█" in bars["t1"] and not any(bars[k] for k in ("t2", "t3", "t4")), bars


async def test_a_score_a_tiny_fraction_of_the_axis_draws_no_bar(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_state(app.state.with_scenario(c=1e-3).with_(row=3))  # t1's score 0.003 on an axis to 6
        await settle(pilot)
        assert np.isclose(app.state.trace.S[3, 0], 0.003)
        assert bar_lines(app, "#chart-scores")["t1"] == ""


def test_half_a_column_is_where_a_bar_starts():
    """On a 0..1 axis of 38 columns a column is 1/37: below half of it nothing, from half on a bar,
    as plotext draws it; on a signed axis the same around 0's column."""
    from attn_tui.tui.widgets.bar_plot import BarPlot

    cells, step = 38, 1 / 37
    values = [1.0, 0.49 * step, 0.51 * step, 4e-18, 0.0]
    kept = drawn(values, (0, 1), cells)
    assert kept == [1.0, 0.0, 0.51 * step, 0.0, 0.0]
    assert drawn([-2.0, 1e-9, 0.08, 5.0], None, cells) == [-2.0, 0.0, 0.0, 5.0]  # 0.08 of 7 is < 1/2 column
    assert drawn([0.3], (0, 1), 1) == [0.3]  # no room to tell: as given

    def lines(vals) -> dict[str, str]:  # what plotext draws for them, a bar a label
        plt = BarPlot().plt
        plt.clear_data()
        plt.frame(False)
        plt.bar(["a ", "b ", "c ", "d ", "e "], vals, orientation="horizontal", width=0.3)
        plt.xlim(0, 1)
        return {line[0]: line[2:] for line in plot_lines(plt, cells + 2, 7) if line[:1] in ("a", "b", "c", "d", "e")}

    before, after = lines(values), lines(kept)
    assert all("█" in before[k] for k in "abcd")  # every nonzero value got a column
    assert "█" in after["a"] and "█" in after["c"] and not any("█" in after[k] for k in "bde")

"""The softmax chart's plot titles are never dropped: plotext leaves out a title that does not fit
its canvas, and at row t9000 "A_t c=1.00 H=12.72/log₂9000=13.14" vanished; a shorter one is drawn."""

from __future__ import annotations

import numpy as np

from attn_tui.core.scenario import Scenario
from attn_tui.tui.app import AttentionApp


def plot_text(app, selector: str) -> str:
    plot = app.screen.query_one(selector)
    return "\n".join(plot.render_line(y).text for y in range(plot.size.height))


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

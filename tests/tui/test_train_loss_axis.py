"""The training screen's loss chart has the height its labels need: at 4 lines the 0.05 target
line sat on the line labelled 0.01 (issue 31). Each power of ten gets its own labelled line and
the target lies on a line between 0.1's and 0.01's, at 120×40 and 80×24."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.train_charts import decade_axis


def test_decade_axis_gives_each_decade_whole_lines():
    bottom, ticks = decade_axis(-2, 0, 5)
    assert ticks == [0, -1, -2] and bottom == -2
    bottom, ticks = decade_axis(-2, 0, 6)  # 2 lines a decade: the bottom moves down half a decade
    assert ticks == [0, -1, -2] and bottom == -2.5


@pytest.mark.long
@pytest.mark.parametrize("trained", [False, True])
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.slow
@pytest.mark.usefixtures("unpaced")
async def test_the_target_line_lies_between_0_1_and_0_01(size, trained, settle):
    """At the start (1 to 0.01) and after the default run (1 to 0.0001: the chart grows)."""
    app = AttentionApp()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        if trained:
            await pilot.press("space")
            await settle(pilot)
            assert app.screen.trainer.done
        plot = app.screen.query_one("#train-loss")
        lines = [plot.render_line(y).text for y in range(plot.size.height)]
    heads = [(line.split("┤")[0].strip() if "┤" in line else "", y) for y, line in enumerate(lines)]
    labelled = {head: y for head, y in heads if head}
    target = [y for y, line in enumerate(lines) if "├" in line and "┤" in line and not line.split("├")[0].strip()]
    assert {"1", "0.1", "0.01"} <= set(labelled), "\n".join(lines)
    assert not trained or "0.0001" in labelled, "\n".join(lines)
    assert target and labelled["0.1"] < target[0] < labelled["0.01"], "\n".join(lines)


async def test_a_resize_shows_the_last_curves_not_the_ones_shown_when_it_happened(settle):
    """A resize during a run re-shows the curves once laid out: the ones shown last when that call
    runs. Bound at the resize, a frame shown in between was drawn over by an older one."""
    from attn_tui.core.train.run import Config, Trainer
    from attn_tui.tui.views import train_view as tv
    from attn_tui.tui.widgets.train_charts import TrainCurves

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        curves = app.screen.query_one(TrainCurves)
        tr = Trainer(Config(steps=20))
        older = tv.curves(tv.snapshot(tr))
        curves.show(older)
        curves.on_resize()
        while not tr.done:
            tr.step()
        newer = tv.curves(tv.snapshot(tr))
        curves.show(newer)
        await settle(pilot)
        plot = curves.query_one("#train-loss")
        drawn = [plot.render_line(y).text for y in range(plot.size.height)]
        curves.show(newer)  # nothing pending now: the newer curves alone
        await settle(pilot)
        assert [plot.render_line(y).text for y in range(plot.size.height)] == drawn

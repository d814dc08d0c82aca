"""The softmax chart keeps bars of different keys visibly apart: row t4's three weights 0.043 were
drawn as one block stacked on t1's 0.870 bar, an 'L' read as one tall bar (issue 31). Where a bar
line lies directly under another key's bar line, it is drawn a quarter lower (▆), at 120×40 (one
line a bar) and 200×60 (three lines a bar)."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.bar_plot import BARS


def owners(lines: list[str]) -> list[int | None]:
    """The key (its label line) each line belongs to: the nearest label line, the lower on a tie."""
    labels = [i for i, line in enumerate(lines) if i and line[:1].strip()]
    return [min(labels, key=lambda j: (abs(i - j), j < i)) if labels else None for i in range(len(lines))]


@pytest.mark.parametrize("size", [(120, 40), (200, 60)])
@pytest.mark.parametrize("chart", ["#chart-probs", "#chart-scores"])
async def test_bars_of_different_keys_do_not_touch(size, chart, settle):
    app = AttentionApp()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        plot = app.screen.query_one(chart)
        lines = [plot.render_line(y).text for y in range(plot.size.height)]
    own, touching = owners(lines), 0
    for i in range(1, len(lines)):
        if BARS.search(lines[i]) and BARS.search(lines[i - 1]) and own[i] != own[i - 1]:
            touching += 1
            assert "█" not in lines[i], "\n".join(lines)
    if chart == "#chart-probs":
        assert touching >= 3, "\n".join(lines)  # t4 over t3 over t2 over t1: the stack that merged

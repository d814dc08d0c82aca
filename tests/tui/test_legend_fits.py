"""S's colour legend stays at every c where it can fit in its label column: after the first `+`
(c = 1.1, max |S| = 3.3) "-3.3 3.3" did not fit the 8 cells of "t1 mat" and the legend vanished for
most c. It now prints max |S| in fewer digits ("-3" bar "3", "12", ".5", "1e3"), each true to its digits."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.core.finite import finite_range
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.palette import BARS, legend, span


def true_to_its_digits(printed: str, m: float) -> bool:
    mantissa, _, exp = printed.partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    ulp = 10.0 ** ((int(exp) if exp else 0) - decimals)
    return abs(float(printed) - m) <= ulp / 2 * (1 + 1e-9)


CS = [1.1**n for n in range(-72, 73)]  # every c that `+` and `-` reach from 1 (0.001 to 1000)


@pytest.mark.parametrize("width, lo, hi", [(8, 0.095, 99.5), (10, 0.0095, 9.5e9)])
def test_the_legend_of_s_fits_at_every_c(width, lo, hi):
    """Width 8 holds both ends of a range of 2 characters ("-3" bar "3", "12", ".5"), width 10 of 3
    ("2.9", "1e3", ".05"); a max |S| with no form that short (0.05, 150 in 8 cells) prints one end,
    "±1e2", before the bar. Every form is max |S| true to its digits."""
    s = builtin("lesson-pipeline")
    for c in CS:
        S = s.with_(c=c).run().S
        m = span(*finite_range(S))
        bar = legend("div", S, width)
        assert bar is not None, (width, c, m)
        if lo <= m < hi:
            assert bar[0] == "-" + bar[2] and true_to_its_digits(bar[2], m), (c, m, bar)
        else:
            assert bar[0].startswith("±") and bar[2] == "" and true_to_its_digits(bar[0][1:], m), (c, m, bar)
        assert width - len(bar[0]) - len(bar[2]) - 1 == len(bar[1]) >= 2


@pytest.mark.slow
async def test_one_plus_keeps_the_legend_of_s(grid_text, settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert np.isclose(app.state.scenario.c, 1.1)
        head = grid_text(app, "S").split("\n")[0]
        assert head.startswith("-3") and head[2] in BARS and "3 " in head[3:9], head  # max |S| = 3.3, to one digit

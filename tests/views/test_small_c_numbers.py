"""Every number quoted for the knob c is its true value to the printed precision, at small c too:
at c = 0.001 the status line said c/√d_k=0.001 (it is 0.0005) and the A_t title said c=0.00."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.core.limits import C_MIN
from attn_tui.tui.fmt import knob
from attn_tui.tui.state import State
from attn_tui.tui.views.chart import chart_view
from attn_tui.tui.views.status import status_parts


def at(c: float, scaled: bool = True) -> State:
    return State(scenario=builtin("lesson-pipeline")).with_(row=3).with_scenario(c=c, scaled=scaled)


def status(state: State) -> str:
    return next(p.long for p in status_parts(state) if p.long.startswith("c="))


def quoted(text: str, name: str) -> list[str]:
    """Every number printed after ``name=`` in ``text``."""
    out, i = [], text.find(name + "=")
    while i >= 0:
        j = i + len(name) + 1
        k = j
        while k < len(text) and (text[k].isdigit() or text[k] in ".e-"):
            k += 1
        out.append(text[j:k])
        i = text.find(name + "=", k)
    return out


def true_to_its_digits(printed: str, value: float) -> bool:
    """``printed`` is ``value`` rounded to the digits it shows, and shows at least one nonzero digit."""
    x = float(printed)
    if x == 0:
        return value == 0
    mantissa = printed.split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exp = int(printed.split("e")[1]) if "e" in printed else 0
    ulp = 10.0 ** (exp - decimals)
    return abs(x - value) <= ulp / 2 * (1 + 1e-9)


@pytest.mark.parametrize("c", [C_MIN, 0.0012, 0.0513, 0.5, 1.0, 10.83, 999.0])
def test_the_status_line_and_the_chart_quote_c_and_c_over_sqrt_dk_truly(c):
    st = at(c)
    s = st.scenario
    line = status(st)
    (printed_c, printed_scale) = quoted(line, "c") + quoted(line, "c/√d_k")
    assert true_to_its_digits(printed_c, c), line
    assert true_to_its_digits(printed_scale, c / np.sqrt(s.d_k)), line
    view = chart_view(st)
    for text in (view.probs_title, view.border_title, *view.probs_shorter[:2]):
        for num in quoted(text, "c"):
            assert true_to_its_digits(num, c), text


def test_at_the_smallest_c_the_status_line_says_0_0005_not_0_001():
    assert status(at(C_MIN)) == "c=0.001 · scaled c/√d_k=0.0005"
    assert "A_t c=0.001 " in chart_view(at(C_MIN)).probs_title


def test_unscaled_the_status_line_says_what_the_scores_are_without_repeating_c():
    line = status(at(2.5, scaled=False))
    assert line == "c=2.500 · UNSCALED c·q·k, no 1/√d_k"
    assert len(quoted(line, "c")) == 1


def test_knob_keeps_the_fixed_form_where_it_has_three_significant_digits():
    assert [knob(x, 3) for x in (1.0, 0.5, 10.835, 0.1)] == ["1.000", "0.500", "10.835", "0.100"]
    assert [knob(x, 3) for x in (0.0005, 0.0513, 4.42e-5, 0.0)] == ["0.0005", "0.0513", "4.42e-5", "0.000"]
    assert [knob(x, 2) for x in (1.0, 0.513, 0.001)] == ["1.00", "0.513", "0.001"]

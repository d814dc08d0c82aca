"""The softmax chart's view: a scores axis that stays put while c, the row and the scaling change."""

import numpy as np

from attn_tui.core import builtin
from attn_tui.tui.state import State
from attn_tui.tui.views.chart import chart_view, score_axis


def test_the_axis_is_the_same_for_every_row_and_for_c_up_to_2():
    st = State(builtin("lesson-pipeline"))
    raw = st.scenario.X @ st.scenario.W_Q @ (st.scenario.X @ st.scenario.W_K).T / np.sqrt(st.scenario.d_k)
    visible = np.tril(np.ones_like(raw, dtype=bool))
    want = (2 * min(0.0, raw[visible].min()), 2 * max(0.0, raw[visible].max()))  # (0, 6): it·mat = 3, twice
    axes = {score_axis(st.with_(row=t).with_scenario(c=c))[:2] for t in range(5) for c in (0.5, 1.0, 1.5, 1.99)}
    assert axes == {want}
    assert score_axis(st.toggle_scaled())[:2] == want  # raw scores at d_k = 4 are exactly twice: they fit


def test_a_bar_that_would_be_clipped_refits_the_axis_and_the_title_says_so():
    st = State(builtin("lesson-pipeline"), row=3).with_scenario(c=2.2)  # row t4: it·mat = 6.6 > 6
    lo, hi, k = score_axis(st)
    assert k == 1 and (lo, hi) == (0.0, 12.0)
    assert "axis 2× wider" in chart_view(st).scores_title
    assert "wider" not in chart_view(st.with_scenario(c=1.0)).scores_title


def test_signed_scores_get_room_on_both_sides():
    st = State(builtin("lesson-pipeline"))
    X = st.scenario.X.copy()
    X[3, 3] = -1.0  # "it" now advertises minus "pronoun": negative scores on row 5
    lo, hi, _ = score_axis(State(st.scenario.with_(X=X)))
    assert lo < 0 < hi


def test_one_outlier_among_thousands_of_cells_does_not_flatten_every_row():
    from attn_tui.bench import random_scenario

    st = State(random_scenario(512))
    S = st.trace.S[~st.trace.blocked]
    lo, hi, k = score_axis(st.with_(row=100))
    assert hi < 2 * float(np.abs(S).max())  # not stretched to the single largest score
    row = st.trace.S[100, :101]
    assert float(np.abs(row).max()) <= max(-lo, hi)  # and the row's own bars all fit


def test_the_axis_holds_every_bar_of_the_row_on_each_side_of_zero():
    """A random scenario's axis is asymmetric (-0.86 .. 5.18 at c = 1): k was fitted to the largest
    |score|, so at c = 304 "axis×32" (-27.5 .. 166) cut row t4's -119 at -27.5. Every c, row, scaling."""
    from attn_tui.core.random_scenario import random_scenario

    for seed in (0, 3):
        st = State(random_scenario(T=5, d_model=6, d_k=4, d_v=4, seed=seed))
        for scaled in (True, False):
            for c in [1.1**n for n in range(-72, 73, 4)]:
                for t in range(5):
                    s = st.with_scenario(c=c, scaled=scaled).with_(row=t)
                    lo, hi, k = score_axis(s)
                    row = s.trace.S[t][~s.trace.blocked[t]]
                    tol = 1e-9 * (hi - lo)  # the axis ends are rounded to 10 digits
                    assert lo - tol <= row.min() and row.max() <= hi + tol, (seed, scaled, c, t, (lo, hi), row)
                    assert k == 0 or row.min() < lo / 2 or row.max() > hi / 2  # and no wider than it must
                    title = chart_view(s).scores_title
                    assert (f"axis {2**k}× wider" in title) == (k > 0), title


def test_a_float16_scenario_gets_the_axis_its_inputs_give():
    """S in float16 divided by c/√d_k is 6.0014 where the inputs say 6: the axis was 0 .. 48.0047 and
    printed "24.0"; to float16's 3 digits it is the float64 twin's 0 .. 48."""
    f16 = State(builtin("float16-overflow"), row=3)
    f64 = State(f16.scenario.with_(dtype="float64"), row=3)
    for c in [1.1**n for n in range(0, 40)]:
        a, b = score_axis(f16.with_scenario(c=c)), score_axis(f64.with_scenario(c=c))
        assert a == b, (c, a, b)


# -- ChartView.bars: the view decides every axis; the widget draws what it is given ---------------


def test_a_readable_row_keeps_the_fixed_axes_and_no_unit():
    view = chart_view(State(builtin("lesson-pipeline"), row=4))
    bars = view.bars(room=10)
    assert bars.score_axis == view.score_axis is not None and bars.probs_axis == (0, 1)
    assert bars.scores_titles == (f"{view.scores_title}  row {view.row}", view.scores_title, view.scores_plain)
    assert bars.probs_titles == (view.probs_title, *view.probs_shorter)
    assert bars.scores == [float(x) for x in view.scores] and bars.border_title == view.border_title
    assert len(bars.labels) == len(view.keys) and len({len(label) for label in bars.labels}) == 1


def test_huge_scores_are_drawn_over_a_power_of_ten_against_a_fitted_axis():
    from attn_tui.core.scenario import Scenario

    s = Scenario(Q=[[1e3], [1e3]], K=[[1e3], [-2e3]], mask="none")  # S = 1e6 and -2e6 (d_k = 1)
    view = chart_view(State(s))
    bars = view.bars(room=10)
    assert view.score_axis is None and bars.score_axis is None  # fitted to the scaled bars
    assert bars.scores == [1.0, -2.0] and all(t.endswith(" ×1e6") for t in bars.scores_titles[1:])
    assert bars.probs_axis == (0, 1)


def test_a_short_chart_gets_the_heaviest_keys_in_order_and_says_top_n_of_n():
    st = State(builtin("lesson-pipeline"), row=4)  # causal: row t5 sees all 5 keys
    view = chart_view(st)
    bars = view.bars(room=2)
    heaviest = sorted(np.argsort(-np.asarray(st.trace.A[4]), kind="stable")[:2])
    np.testing.assert_array_equal(bars.weights, st.trace.A[4][heaviest])
    assert [label.split()[0] for label in bars.labels] == [view.keys[i] for i in heaviest]
    assert bars.border_title == view.border_title + " · top 2/5"


def test_a_short_chart_showing_every_key_row_t_sees_says_no_top():
    """Row t1 of a causal mask sees one key: a chart of 2 lines draws it (and a blocked key, ×), and
    leaves out none row t1 sees, so its title says no "top 1/1"."""
    view = chart_view(State(builtin("lesson-pipeline"), row=0))
    bars = view.bars(room=2)
    assert len(bars.labels) == 2 and bars.border_title == view.border_title
    assert view.bars(room=1).border_title == view.border_title  # t1 alone

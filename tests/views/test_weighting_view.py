"""The explorer's weighting (State.weighting, key W): the A grid and the chart's bars are A times each
key's ‖v_j‖ (or ‖v_j W_O^(h)‖) over the largest, recomputed here with loops from the head's own V and
W_O; the cycle skips info-weighted without a W_O; undo keeps what the learner chose to look at."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.builtins import DEFAULT, builtin
from attn_tui.core.heads import open_heads
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.history import History
from attn_tui.tui.state import State
from attn_tui.tui.views.chart import chart_view
from attn_tui.tui.views.grids import grid_view
from attn_tui.tui.views.heads_layout import Layout
from attn_tui.tui.views.heads_view import LEGEND, header, legend

EPS = np.finfo(np.float64).eps


def head_state(layer=1, head=2) -> State:
    s, ref = open_ref("induction-demo", "a b c d a b c d", layer, head)
    return State.opening(s, ref)


def loop_scale(V, W=None):
    rows = V.tolist()
    if W is not None:
        Wl = W.tolist()
        rows = [[sum(v[a] * Wl[a][b] for a in range(len(Wl))) for b in range(len(Wl[0]))] for v in rows]
    norms = [math.sqrt(sum(x * x for x in r)) for r in rows]
    return np.array(norms) / max(norms)


def test_value_then_info_weighted_a_grid_is_the_loop():
    st = head_state().cycle_weighting()
    assert st.weighting == "value"
    src = open_heads("induction-demo", "a b c d a b c d")
    V = src.read("V", 1, src.kv_head[2]).astype(np.float64)
    got = grid_view("A", st).values
    np.testing.assert_allclose(got, st.trace.A * loop_scale(V), rtol=0, atol=64 * EPS)
    assert "value-weighted" in grid_view("A", st).title
    assert np.all(np.nansum(got, axis=1) <= 1 + 64 * EPS)
    st = st.cycle_weighting()
    W = src.read("W_O", 1)[2 * 8 : 3 * 8].astype(np.float64)  # head 2's d_v = 8 rows of W_O
    np.testing.assert_allclose(grid_view("A", st).values, st.trace.A * loop_scale(V, W), rtol=0, atol=64 * EPS)
    assert "info-weighted" in grid_view("A", st).title
    assert st.cycle_weighting().weighting == "A"


def test_the_charts_bars_are_the_rows_weighted_and_say_so():
    st = head_state().with_(row=6).cycle_weighting()
    c = chart_view(st)
    np.testing.assert_allclose(c.weights, grid_view("A", st).values[6], rtol=0, atol=64 * EPS)
    total = float(np.nansum(grid_view("A", st).values[6]))
    assert f"sum {total:.2f}" in c.border_title and c.probs_title.startswith("A_t·‖v‖")


def test_one_head_has_no_w_o_so_the_cycle_skips_info():
    st = State.opening(builtin(DEFAULT))
    assert not st.has_w_o
    st = st.cycle_weighting()
    assert st.weighting == "value" and st.cycle_weighting().weighting == "A"
    assert st.with_(weighting="info").weighting_shown == "A"  # asked for, but not formable here


def test_undo_keeps_the_weighting_and_heads_header_names_it():
    st = head_state()
    h = History()
    changed = st.scale_by(1.1)
    h.record(st, changed)
    weighted = changed.cycle_weighting()
    back = h.undo(weighted)
    assert back.scenario is st.scenario and back.weighting == "value"
    lay = Layout(per_row=2, tile_w=40, tile_h=12, n=16, cw=2)
    assert "value-weighted A (rows sum ≤ 1)" in header(st.head.source, 1, "head", False, lay, "value")
    assert legend("value").startswith("pictures: each weight × ‖v_j‖") and "rows sum to < 1" in legend("info")
    assert legend("A") == LEGEND


def test_the_tour_page_on_what_a_head_moves_computes_its_numbers():
    from attn_tui.tui.views.heads_tour import SINK_ROW, SINK_V, moves_page

    text = moves_page()
    norms = [math.sqrt(sum(x * x for x in v)) for v in SINK_V]
    dark = SINK_ROW[0] * norms[0] / max(norms)  # the sink's weight, value-weighted (a loop here)
    assert f"{dark:.2f} on t1" in text and "O = A V" in text and "sink goes dark" in text
    total = sum(a * n / max(norms) for a, n in zip(SINK_ROW, norms))
    assert f"the row sums to {total:.2f}, not 1" in text


def test_the_charts_pinned_ticks_are_weighted_like_its_bars():
    st = head_state().with_(row=6).toggle_pin().step_head(1).cycle_weighting()  # head 3 against pinned head 2
    src = open_heads("induction-demo", "a b c d a b c d")
    V_pin = src.read("V", 1, src.kv_head[2]).astype(np.float64)
    c = chart_view(st)
    want = st.compared.trace.A[6] * loop_scale(V_pin)
    np.testing.assert_allclose(c.ghost_weights, want, rtol=0, atol=64 * EPS)

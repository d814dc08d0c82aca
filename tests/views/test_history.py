"""Undo/redo of States (attn_tui.history)."""

import numpy as np

from attn_tui.core import builtin
from attn_tui.core.edit import add_token, set_cell
from attn_tui.tui.history import History
from attn_tui.tui.state import State, clamp_cursor


def _apply(h, cur, new):
    h.record(cur, new)
    return new


def test_undo_redo_roundtrip():
    h = History()
    s0 = State(builtin("lesson-pipeline"))
    s1 = _apply(h, s0, s0.with_(scenario=set_cell(s0.scenario, "X", 0, 0, 5)))
    s2 = _apply(h, s1, s1.with_(scenario=set_cell(s1.scenario, "X", 0, 1, 7)))
    u1 = h.undo(s2)
    h.record(s2, u1)  # the app's set_state records; a replay must not count as a change
    assert u1.scenario is s1.scenario and h.future
    u0 = h.undo(u1)
    h.record(u1, u0)
    assert u0.scenario is s0.scenario and not h.past and h.undo(u0) is None
    r1 = h.redo(u0)
    h.record(u0, r1)
    assert r1.scenario is s1.scenario and h.future


def test_new_change_clears_redo_and_view_moves_ignored():
    h = History()
    s0 = State(builtin("lesson-pipeline"))
    s1 = _apply(h, s0, s0.select_row(2))  # not an undo step
    assert not h.past
    s2 = _apply(h, s1, s1.scale_by(1.1))
    u = h.undo(s2)
    h.record(s2, u)
    assert u.row == 2  # the view stays where the learner is
    _apply(h, u, u.toggle_mask())
    assert not h.future and h.past


def test_limit_and_cursor_clamp():
    h = History(limit=3)
    s = State(builtin("lesson-pipeline"))
    for _ in range(5):
        s = _apply(h, s, s.scale_by(1.1))
    assert len(h.past) == 3
    big = State(add_token(builtin("lesson-pipeline")), row=5, cursor=("X", 5, 2))
    small = State(builtin("lesson-pipeline"))
    h2 = History()
    h2.record(small, big)
    back = h2.undo(big)
    assert back.row == 4 and back.cursor == ("X", 4, 2)
    assert clamp_cursor(small.scenario, ("Q", 0, 0)) == ("Q", 0, 0)
    assert clamp_cursor(small.scenario, ("Y", 0, 0)) is None


def _traces_alive() -> int:
    import gc

    from attn_tui.core.attention import Trace

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Trace))


def test_the_history_keeps_no_traces_and_states_of_one_scenario_share_one():
    """Each Trace at T = 512 is ~8 MiB: 500 undo steps holding theirs grew to gigabytes (session 5)."""
    from attn_tui.core.builtins import builtin
    from attn_tui.tui.state import KEEP

    st, h = State.opening(builtin("lesson-pipeline")), History()
    assert st.select_row(1).trace is st.trace  # a row move computes nothing again
    before = _traces_alive()
    for _ in range(3 * KEEP):
        new = st.scale_by(1.1)
        assert new.trace is not st.trace
        h.record(st, new)
        st = new
    assert len(h.past) == 3 * KEEP and _traces_alive() - before <= KEEP
    back = h.undo(st)
    np.testing.assert_array_equal(back.trace.A, back.scenario.run().A)  # an undone state recomputes its trace

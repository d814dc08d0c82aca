"""The State's knobs as pure functions."""

from attn_tui.core import builtin
from attn_tui.tui.state import State


def test_zero_returns_to_the_operating_point_even_after_u():
    st = State(builtin("lesson-pipeline")).scale_by(1.1).toggle_scaled()
    assert not st.scenario.scaled and st.scenario.c != 1.0
    back = st.reset_scale()
    assert back.scenario.scaled and back.scenario.c == 1.0
    assert back.trace.S[3, 0] == 3.0  # the lesson's 2·3/√4 at the operating point

"""The State's knobs as pure functions."""

from attn_tui.core import builtin
from attn_tui.tui.state import State


def test_zero_returns_to_the_operating_point_even_after_u():
    st = State(builtin("lesson-pipeline")).scale_by(1.1).toggle_scaled()
    assert not st.scenario.scaled and st.scenario.c != 1.0
    back = st.reset_scale()
    assert back.scenario.scaled and back.scenario.c == 1.0
    assert back.trace.S[3, 0] == 3.0  # the lesson's 2·3/√4 at the operating point


def test_c_stops_at_the_ends_of_its_range_and_says_so():
    import pytest

    from attn_tui.core.limits import C_MAX, C_MIN
    from attn_tui.tui.state import Refused

    st = State(builtin("lesson-pipeline").with_(c=C_MAX / 1.05))
    top = st.scale_by(1.1)
    assert top.scenario.c == C_MAX  # the last step lands on the end, not past it
    with pytest.raises(Refused, match=f"c is at its largest value, {C_MAX:g}: the knob goes from {C_MIN:g}"):
        top.scale_by(1.1)
    assert top.scale_by(1 / 1.1).scenario.c < C_MAX  # back down is fine
    bottom = State(builtin("lesson-pipeline").with_(c=C_MIN))
    with pytest.raises(Refused, match=f"smallest value, {C_MIN:g}"):
        bottom.scale_by(1 / 1.1)


async def test_holding_plus_at_the_end_of_the_range_shows_one_warning_not_a_pile():
    from attn_tui.core.limits import C_MAX
    from attn_tui.tui import framework
    from attn_tui.tui.app import AttentionApp

    app = AttentionApp(scenario=builtin("lesson-pipeline").with_(c=C_MAX))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*["plus"] * 6)
        await pilot.pause()
        shown = [str(n.message) for n in framework.shown_notifications(app)]
        assert sum("c is at its largest value" in m for m in shown) == 1, shown


async def test_the_note_that_c_is_at_its_largest_goes_when_c_no_longer_is():
    """`0` after the refusal at c = 1000: c is 1 and the warning said otherwise until it timed out."""
    from attn_tui.core.limits import C_MAX
    from attn_tui.tui.app import AttentionApp

    app = AttentionApp(scenario=builtin("lesson-pipeline").with_(c=C_MAX))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus")
        await pilot.pause()
        assert any("c is at its largest value" in m for m in app.notes.messages())
        await pilot.press("j")  # another row: c is still at its largest, the note stays
        await pilot.pause()
        assert any("c is at its largest value" in m for m in app.notes.messages())
        await pilot.press("0")
        await pilot.pause()
        assert app.state.scenario.c == 1.0
        assert not any("largest" in m for m in app.notes.messages()), app.notes.messages()

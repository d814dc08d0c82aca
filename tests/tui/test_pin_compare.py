"""Pin and compare: P pins the state; A and the entropy table then show ΔA and ΔH against it,
and the charts draw the pinned row as ┃ ticks (the lesson's exercises 1 and 2)."""

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.state import State
from attn_tui.tui.views.grids import grid_view


def test_exercise_1_remove_the_scale_reads_delta_h():
    base = State(builtin("lesson-handcrafted"))
    st = base.toggle_pin().toggle_scaled()
    h = grid_view("H", st)
    assert h.cols == ("H pin", "H", "ΔH")
    np.testing.assert_allclose(h.values[:, 0], base.trace.H)
    np.testing.assert_allclose(h.values[:, 2], st.trace.H - base.trace.H)
    assert (h.values[1:, 2] < 0).all()  # every row with a choice gets sharper without the scale
    a = grid_view("A", st)
    assert a.title.startswith("ΔA") and a.kind == "div"
    np.testing.assert_allclose(a.values, st.trace.A - base.trace.A)


def test_exercise_2_drop_the_mask_shows_token_1_reading_the_future():
    st = State(builtin("lesson-handcrafted")).toggle_pin().toggle_mask()
    d = grid_view("A", st).values
    assert d[0, 0] < 0 and (d[0, 1:] > 0).all()  # row 1 gives weight away to future keys
    assert st.scenario.mask == "none" and st.pin.scenario.mask == "causal"


def test_a_pin_of_another_shape_is_kept_but_not_compared():
    st = State(builtin("lesson-pipeline")).toggle_pin()
    from attn_tui.core.edit import add_token

    grown = st.with_(scenario=add_token(st.scenario, 5))
    assert grown.pin is not None and grown.compared is None
    assert grid_view("A", grown).title.startswith("A =")


async def test_p_pins_undo_keeps_the_pin_and_the_chart_draws_ghosts(settle, chart_lines, grid_cell):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_state(app.state.with_(row=3))
        await pilot.press("P")
        await settle(pilot)
        assert app.state.pin is not None and "pinned" in app.screen.query_one("#status").plain
        assert grid_cell(app, "A", 3, 0) in ("0.000", "0")  # nothing changed yet: ΔA = 0
        await pilot.press("u")
        await settle(pilot)
        want = app.state.trace.A[3, 0] - app.state.pin.trace.A[3, 0]
        assert grid_cell(app, "A", 3, 0) == f"{want:.3f}"
        assert any("┃" in line for line in chart_lines(app, "probs"))  # the pinned row's values
        assert "pin H=" in app.screen.query_one("#chart").border_title
        await pilot.press("ctrl+z")  # undo the scaling change: the pin stays
        await settle(pilot)
        assert app.state.scenario.scaled and app.state.pin is not None
        await pilot.press("P")
        await settle(pilot)
        assert app.state.pin is None and app.screen.query_one("#grid-A").border_title.startswith("A")


@pytest.mark.slow
async def test_a_key_masked_now_keeps_its_pinned_score_tick(settle, monkeypatch):
    """Pin, then pad key 1: row t2 may no longer see t1, but the pin could, with S(2,1) = 3. The ghost
    tick sits at the pin's score, under the pin's own mask (it was zeroed with today's mask and drawn at 0)."""
    from attn_tui.tui.widgets.softmax_chart import SoftmaxChart

    drawn = {}
    original = SoftmaxChart._bars

    def spy(self, selector, labels, values, title, ylim, ghost=None, **kw):
        drawn[selector] = ghost
        return original(self, selector, labels, values, title, ylim, ghost, **kw)

    monkeypatch.setattr(SoftmaxChart, "_bars", spy)
    app = AttentionApp(scenario=builtin("lesson-pipeline"))
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_state(app.state.with_(row=1).toggle_pin())
        await settle(pilot)
        pinned = app.state.pin.trace.S[1]
        app.set_state(app.state.with_scenario(padding=(1,)))
        await settle(pilot)
        assert app.state.trace.blocked[1, 0] and not app.state.pin.trace.blocked[1, 0]
        ghost = drawn["#chart-scores"]
        assert ghost[0] == float(pinned[0]) == 3.0


async def test_opening_another_scenario_drops_the_pin_and_says_so(settle):
    """A pin of the lesson pipeline compared with the hand-crafted scenario (same shape) as if the
    learner had changed one thing (issue 31): opening another scenario drops the pin, with a note."""
    from attn_tui.tui import framework
    from attn_tui.tui.actions.files import apply_open

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("P")
        await settle(pilot)
        assert app.state.pin is not None
        assert apply_open(app, "lesson-handcrafted") is None
        await settle(pilot)
        assert app.state.scenario.title == builtin("lesson-handcrafted").title
        assert app.state.pin is None and app.state.compared is None
        notes = " ".join(str(n.message) for n in framework.shown_notifications(app))
        assert "pin" in notes and "dropped" in notes, notes
        await pilot.press("P", "u")  # a pin of this scenario compares as before
        await settle(pilot)
        assert app.state.compared is not None

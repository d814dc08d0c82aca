"""Issue 34 item 6: every change of the explorer's scenario passes the admission a file passes
(core.limits.refusal, the explorer's file door). Switching to float16 with X[5, 4] = 100000 made a
scenario the app then saved and refused to open ('Q overflows float16'); a refused change keeps the
previous state and says one line."""

from attn_tui.core import edit as E
from attn_tui.core import modes as Mo
from attn_tui.core import scenario_io as io
from attn_tui.core.limits import admit
from attn_tui.tui.actions import attempt, commit
from attn_tui.tui.actions.files import apply_save
from attn_tui.tui.app import AttentionApp

SIZE = (120, 40)


async def test_float16_with_a_large_cell_is_refused_and_the_state_stays(settle, tmp_path):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert commit(app, E.set_cell(app.state.scenario, "X", 4, 3, "100000")) is None
        before = app.state
        why = attempt(app, Mo.set_dtype, "float16")
        assert why == (
            "not applied: X row 5 and W_Q column 1: Q overflows float16 (largest finite 65504); use smaller values"
        )
        assert app.state is before and app.state.scenario.dtype == "float64"
        assert apply_save(app, str(tmp_path / "s.toml"), False) is None
        assert io.resolve(str(tmp_path / "s.toml"), large=True).X[4, 3] == 100000  # what was saved opens


async def test_the_c_knob_stops_before_scores_overflow_float16(settle):
    """`+` held in float16 with X[5, 4] = 150: c grows until S would overflow, then the knob says so."""
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = Mo.set_dtype(E.set_cell(app.state.scenario, "X", 4, 3, "150"), "float16")
        assert commit(app, s) is None
        for _ in range(80):  # 1.1**80 ~ 2000: past the knob's top, 1000
            app.action_do("knobs.scale_by", 1.1)
            admit(app.state.scenario, large=True)  # what the explorer holds, a file door opens
        await settle(pilot)
        assert app.state.scenario.c < 1000
        assert any("S overflows float16" in m for m in app.notes.messages())


async def test_unscaling_and_every_mode_change_keep_an_admissible_scenario(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = Mo.set_dtype(E.set_cell(app.state.scenario, "X", 4, 3, "150"), "float16").with_(c=100.0)
        assert commit(app, s) is None
        app.action_do("knobs.toggle_scaled")  # c·QKᵀ without 1/√d_k = 1/2: S overflows float16
        assert app.state.scenario is s and "S overflows float16" in app.notes.messages()[-1]
        for change in ("toggle_mask", "reset_scale", "toggle_scaled"):
            app.action_do(f"knobs.{change}")
            admit(app.state.scenario, large=True)
        for fn, *args in [(Mo.set_fill, "-inf"), (Mo.set_padding, [2]), (E.set_dim, "d_k", 6), (E.add_token, None)]:
            attempt(app, fn, *args)
            admit(app.state.scenario, large=True)

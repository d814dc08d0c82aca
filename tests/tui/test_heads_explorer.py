"""The explorer on a multi-head source (issue 28): one head at a time, every pane unchanged,
keys and the go-to form move between heads and layers, a pin compares two heads."""

from __future__ import annotations

import io

import numpy as np
import pytest

from attn_tui.core.heads import head_scenario, open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref, parse_head, stepped
from attn_tui.tui.state import Refused, State

SIZE = (120, 40)


def demo_state() -> State:
    s, ref = open_ref("induction-demo")
    return State.opening(s, ref)


def test_a_head_state_is_that_heads_scenario():
    st = demo_state().step_head(1).step_layer(1)  # layer 1, head 1
    assert (st.head.layer, st.head.head) == (1, 1)
    want = head_scenario(open_heads("induction-demo"), 1, 1).run()
    np.testing.assert_array_equal(st.trace.A, want.A)
    np.testing.assert_array_equal(st.trace.O, want.O)


def test_head_steps_wrap_into_the_next_layer_and_round():
    st = demo_state()
    seen = []
    for _ in range(9):  # 2 layers x 4 heads, then back to the first
        seen.append((st.head.layer, st.head.head))
        st = st.step_head(1)
    assert seen == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (0, 0)]
    assert (demo_state().step_head(-1).head.layer, demo_state().step_head(-1).head.head) == (1, 3)


def test_a_pin_compares_two_heads():
    st = demo_state().with_(row=5).toggle_pin()  # layer 0 head 0 pinned
    moved = st.step_head(1)
    assert moved.row == 5 and moved.pin is st.pin
    assert moved.compared is not None
    delta = moved.trace.A - moved.compared.trace.A
    src = open_heads("induction-demo")
    want = head_scenario(src, 0, 1).run().A - head_scenario(src, 0, 0).run().A
    np.testing.assert_allclose(delta, want)
    assert np.abs(delta).max() > 0.1  # two different heads


def test_one_head_scenario_refuses_head_keys():
    from attn_tui.core.builtins import DEFAULT, builtin

    st = State.opening(builtin(DEFAULT))
    with pytest.raises(Refused, match="one head here"):
        st.step_head(1)
    with pytest.raises(Refused, match="one head here"):
        st.step_layer(1)


@pytest.mark.parametrize(
    ("text", "want"),
    [("1.3", (1, 3)), ("L0.H2", (0, 2)), ("1 0", (1, 0))],
)
def test_parse_head(text, want):
    _, ref = open_ref("induction-demo")
    got = parse_head(text, ref)
    assert (got.layer, got.head) == want


@pytest.mark.parametrize(("text", "words"), [("2.0", "layer 2 is not there"), ("0.4", "head 4"), ("x", "LAYER.HEAD")])
def test_parse_head_refuses(text, words):
    _, ref = open_ref("induction-demo")
    with pytest.raises(ValueError, match=words):
        parse_head(text, ref)


def test_a_multi_head_file_opens_on_head_0_0(tmp_path):
    rng = np.random.default_rng(0)
    L, H, T, d = 2, 3, 6, 4
    Q = rng.standard_normal((L, H, T, d))
    K, V = rng.standard_normal((L, H, T, d)), rng.standard_normal((L, H, T, d))
    path = tmp_path / "m.npz"
    save_heads(str(path), Q, K, V, tokens=[f"w{i}" for i in range(T)], mask="causal")
    s, ref = open_ref(str(path))
    st = State.opening(s, ref).step_head(-1)  # round to the last head of the last layer
    assert (st.head.layer, st.head.head) == (1, 2)
    np.testing.assert_allclose(st.scenario.Q, Q[1, 2])
    np.testing.assert_allclose(st.trace.A, head_scenario(open_heads(str(path)), 1, 2).run().A)
    assert st.scenario.tokens == tuple(f"w{i}" for i in range(T))
    with pytest.raises(ValueError, match="fixed Q, K, V"):
        open_ref(str(path), "a b")


def test_stepped_layers_keep_the_head_number():
    _, ref = open_ref("induction-demo")
    assert (stepped(ref, d_layer=1).layer, stepped(ref, d_layer=1).head) == (1, 0)
    assert stepped(stepped(ref, d_layer=1), d_layer=1).layer == 0


def _status(app) -> str:
    return app.screen.query_one("#status").render_line(0).text


@pytest.mark.slow
async def test_keys_move_between_heads_and_say_which(settle):
    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "layer 0 · head 0 of 4" in _status(app)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 2)
        assert "layer 0 · head 2 of 4" in _status(app)
        want = head_scenario(open_heads("induction-demo"), 0, 2).run().A
        assert app.screen.query_one("#grid-A").cell_text(3, 3) == f"{want[3, 3]:.3f}"
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 2)
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 1)
        await pilot.press("ctrl+z")  # a head move is one undo step
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 2)


async def test_the_go_to_head_form(settle):
    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("H")
        await settle(pilot)
        field = app.screen.query_one("#field-head")
        field.value = "9.9"
        await pilot.press("enter")
        await settle(pilot)
        assert "layer 9 is not there" in str(app.screen.query_one("#form-message").render())
        assert (app.state.head.layer, app.state.head.head) == (0, 0)  # kept
        app.screen.query_one("#field-head").value = "1.2"
        await pilot.press("enter")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 2)
        assert "layer 1 · head 2 of 4" in _status(app)


async def test_head_keys_on_one_head_say_why(make_app, settle):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        before = app.state
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert app.state is before
        assert any("one head here" in m for m in app.notes.messages())


async def test_opening_a_single_head_file_forgets_the_head(settle):
    from attn_tui.tui.actions.files import apply_open

    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        assert apply_open(app, "box-kernel") is None
        await settle(pilot)
        assert app.state.head is None
        assert "head" not in _status(app).split("·")[1]
        assert apply_open(app, "induction-demo") is None  # the open dialog takes the multi-head built-in
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 0)


async def test_the_palette_goes_to_l_dot_h(settle):
    from attn_tui.tui.heads_commands import HeadCommands

    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        provider = HeadCommands(app.screen)
        hits = [h async for h in provider.search("1.2")]
        assert [str(h.text) for h in hits] == ["Go to head 1.2  · layer 1 · head 2 of 4"]
        assert [h async for h in provider.search("7.7")] == []  # not a head: nothing offered
        assert len([h async for h in provider.search("head")]) == 4  # the current layer's heads
        hits[0].command()
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 2)


def test_a_prefetched_neighbour_is_the_scenario_the_move_takes():
    from attn_tui.tui import heads_nav

    s, ref = open_ref("induction-demo")
    heads_nav._READY.clear()
    heads_nav.prefetch(ref)
    nxt, prev = stepped(ref, d_head=1), stepped(ref, d_head=-1)
    ready = {k[1:]: v[1] for k, v in heads_nav._READY.items()}
    assert set(ready) == {(0, 1), (1, 3)}
    st = State.opening(s, ref)
    assert st.step_head(1).scenario is ready[(nxt.layer, nxt.head)]
    assert st.step_head(-1).scenario is ready[(prev.layer, prev.head)]
    np.testing.assert_array_equal(ready[(0, 1)].Q, head_scenario(open_heads("induction-demo"), 0, 1).Q)


async def test_tokens_on_a_file_are_refused_in_one_line(tmp_path, settle):
    from attn_tui.tui.actions.heads import apply_tokens

    rng = np.random.default_rng(2)
    Q, K, V = (rng.standard_normal((1, 2, 4, 3)) for _ in range(3))
    path = tmp_path / "f.npz"
    save_heads(str(path), Q, K, V, mask="causal")
    s, ref = open_ref(str(path))
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.state
        why = apply_tokens(app, "a b c d")
        assert why.startswith("tokens: ") and "fixed Q, K, V" in why and "\n" not in why
        assert app.state is before


def test_the_explorer_opens_on_the_first_repeated_token():
    s, _ = open_ref("induction-demo", "a b c d b c")
    st = State.opening(s, _)
    assert st.row == 4 and s.tokens[st.row] == "b"  # the second b: the first token seen before
    assert open_ref("induction-demo", "a b c")[0].focus_row is None


async def test_too_many_tokens_in_the_app_one_line_state_kept(settle):
    from attn_tui.tui.actions.heads import apply_tokens

    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.state
        why = apply_tokens(app, " ".join("abcdefghijklmnopqrstuvwxyzabcdefg"))  # 33 letters, 32 positions
        assert why == "tokens: 33 tokens; the model has 32 positions"
        assert app.state is before
        assert apply_tokens(app, "a b a b") is None  # read; the forward runs in a worker
        await settle(pilot)
        assert app.state.head.source.T == 4 and app.state.head.source.tokens == tuple("abab")


async def test_moving_between_heads_is_no_edit_to_keep(settle, state_home):
    from attn_tui.core import session_store as store
    from attn_tui.tui.session import SessionKeeper

    s, ref = open_ref("induction-demo")
    keeper = SessionKeeper(store.state_folder(), s, "induction-demo", fresh=True)
    app = AttentionApp(scenario=s, head=ref, session=keeper)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign", "right_curly_bracket")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 1)
        assert not keeper.has_edits(app)  # a quit keeps nothing, the next launch offers nothing
        await pilot.press("plus")  # c changed on this head: an edit
        await settle(pilot)
        assert keeper.has_edits(app)
        await pilot.press("greater_than_sign")  # on to another head: the edit is in the undo history
        await settle(pilot)
        assert keeper.has_edits(app)


async def test_lenses_mask_and_inspector_work_on_a_head(settle):
    from attn_tui.tui.screens.lenses import LensesScreen

    s, ref = open_ref("induction-demo", "q w e r q w e r")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign", "m")  # head 0.1, causal mask off
        await settle(pilot)
        assert app.state.scenario.mask == "none" and app.state.head.head == 1
        want = head_scenario(open_heads("induction-demo", "q w e r q w e r"), 0, 1).with_(mask="none").run().A
        np.testing.assert_allclose(app.state.trace.A, want)
        assert "A[" in app.screen.query_one("#inspector").render_line(0).text + "".join(
            app.screen.query_one("#inspector").render_line(y).text for y in range(4)
        )
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LensesScreen)
        from attn_tui.tui.widgets.lens_panels import RankPanel

        rank = rendered(app.screen.query_one(RankPanel).query_one("#rank-text").content)  # help, then numbers
        r = app.state.rank  # the head's own rank lens, drawn
        assert f"rank S = {r['S']}" in rank and f"d_k = {app.state.scenario.d_k}" in rank and "d_k = 8" in rank


def rendered(renderable, width: int = 100) -> str:
    """What a Rich renderable prints (a lens panel holds a Group, not text)."""
    from rich.console import Console

    con = Console(width=width, record=True, file=io.StringIO())
    con.print(renderable)
    return con.export_text()

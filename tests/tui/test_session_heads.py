"""A kept session on one head of a multi-head source (induction-demo, a multi-head file) comes back
on that head: the source reopened, the layer and head shown, the edits kept, `>` moving on, each
undo step on its own head. A source that cannot be reopened restores as one head, and says so.

Every kept file goes to the test's own XDG_STATE_HOME (tests/conftest.py ``state_home``).
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import session_store as store
from attn_tui.core.builtins import DEFAULT, builtin
from attn_tui.core.heads import head_scenario, open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.session import SessionKeeper, as_computed

SIZE = (120, 40)


def _status(app) -> str:
    return app.screen.query_one("#status").render_line(0).text


def _notes(app) -> list[str]:
    return [str(n.message) for n in app.notes.shown()]


async def _keep_an_edited_head(name: str, settle) -> None:
    """`attn-tui --scenario NAME`: `>` to head 0.1, Q[3,2] = 5 (as the editor commits it), `+`, then `q`."""
    s, ref = open_ref(name)
    app = AttentionApp(scenario=s, head=ref, session=SessionKeeper(store.state_folder(), s, name))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign")
        await settle(pilot)
        Q = app.state.scenario.Q.copy()
        Q[2, 1] = 5.0
        assert app.set_state(app.state.with_scenario(Q=Q)) is None
        await pilot.press("plus")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 1)
        await pilot.press("q")
    assert "your session (2 edits, c = 1.1) is kept in" in app.session.message  # the cell and `+`; `>` moved


def _resumed() -> AttentionApp:
    """`attn-tui --resume`: the default built-in opened, the kept session restored without asking."""
    return AttentionApp(session=SessionKeeper(store.state_folder(), builtin(DEFAULT), DEFAULT, resume=True))


async def test_a_kept_head_comes_back_on_that_head_with_its_edits(state_home, settle):
    await _keep_an_edited_head("induction-demo", settle)
    app = _resumed()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        st = app.state
        assert st.head is not None and (st.head.layer, st.head.head, st.head.name) == (0, 1, "induction-demo")
        assert st.scenario.Q[2, 1] == 5.0 and st.scenario.c == pytest.approx(1.1)
        assert "layer 0 · head 1 of 4" in _status(app)
        # each undo step on its own head: head 0.0 as computed, head 0.1 as computed, head 0.1 edited
        assert [(x.head.layer, x.head.head) for x in app.history.past] == [(0, 0), (0, 1), (0, 1)]
        assert [as_computed(x) for x in app.history.past] == [True, True, False]
        assert app.session.has_edits(app)
        await pilot.press("greater_than_sign")  # `>` still moves, to the next head as computed
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 2) and "layer 0 · head 2 of 4" in _status(app)
        np.testing.assert_array_equal(app.state.scenario.Q, head_scenario(open_heads("induction-demo"), 0, 2).Q)
        await pilot.press("ctrl+z", "ctrl+z")  # back over `>`, then `+`: head 0.1 with the cell edit
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 1) and app.state.scenario.c == 1.0
        assert app.state.scenario.Q[2, 1] == 5.0 and "layer 0 · head 1 of 4" in _status(app)
        await pilot.press("ctrl+z", "ctrl+z")  # the cell edit, then the first `>`: head 0.0 as the launch opened it
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 0) and as_computed(app.state)


def _heads_file(path, layers: int = 2) -> None:
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((layers, 3, 6, 4)) for _ in range(3))
    save_heads(str(path), Q, K, V, tokens=[f"w{i}" for i in range(6)], mask="causal")


@pytest.mark.parametrize("then", ["deleted", "not a heads file"])
async def test_a_heads_file_that_cannot_be_reopened_restores_one_head_and_says_so(state_home, settle, tmp_path, then):
    path = tmp_path / "heads.npz"
    _heads_file(path)
    kept_Q = head_scenario(open_heads(str(path)), 0, 1).Q.copy()
    kept_Q[2, 1] = 5.0
    await _keep_an_edited_head(str(path), settle)
    if then == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"not a zip")
    app = _resumed()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        said = [m for m in _notes(app) if m.startswith("restored ")]
        assert app.state.head is None and " of 4" not in _status(app)  # no "layer L · head H of 4"
        np.testing.assert_array_equal(app.state.scenario.Q, kept_Q)  # the edits kept all the same
        assert app.state.scenario.c == pytest.approx(1.1) and len(app.history.past) == 3
        assert len(said) == 1 and "\n" not in said[0], said
        assert f"its heads file could not be reopened ({path}: " in said[0]
        assert said[0].endswith("): restored as one head")
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert any(m.startswith("one head here") for m in _notes(app))


async def test_a_kept_layer_no_longer_in_the_file_restores_one_head_and_says_so(state_home, settle, tmp_path):
    path = tmp_path / "heads.npz"
    _heads_file(path)
    s, ref = open_ref(str(path))
    app = AttentionApp(scenario=s, head=ref, session=SessionKeeper(store.state_folder(), s, str(path)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right_curly_bracket", "plus")  # layer 1, head 0; c = 1.1
        await settle(pilot)
        assert app.state.head.layer == 1
        await pilot.press("q")
    _heads_file(path, layers=1)
    app = _resumed()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state.head is None and app.state.scenario.c == pytest.approx(1.1)
        said = [m for m in _notes(app) if m.startswith("restored ")]
        assert len(said) == 1 and f"could not be reopened ({path}: layer 1 is not there" in said[0], said
        assert app.history.past[0].head is not None  # the step on layer 0 is still there: on its head


async def test_the_weighting_comes_back_with_the_session(state_home, settle):
    """`W` (value-weighted A) then an edit and `q`: the resumed explorer shows value-weighted A again."""
    s, ref = open_ref("induction-demo")
    app = AttentionApp(scenario=s, head=ref, session=SessionKeeper(store.state_folder(), s, "induction-demo"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("W", "plus")
        await settle(pilot)
        assert app.state.weighting == "value"
        await pilot.press("q")
    assert "is kept in" in app.session.message
    app = _resumed()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state.weighting == app.state.weighting_shown == "value"
        assert app.state.key_scale is not None


async def test_a_new_sentence_counts_as_an_edit_of_the_session(state_home, settle):
    """Review: after `i` and a new text, `q` said "your session (0 edits, c = 1) is kept": the step to the
    model run on new tokens was counted as a move between heads. It is an edit, and --resume brings it back."""
    from textual.widgets import Input

    name = "induction-demo"
    s, ref = open_ref(name)
    app = AttentionApp(scenario=s, head=ref, session=SessionKeeper(store.state_folder(), s, name))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        app.screen.query_one(Input).value = "a b c a b c"
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.scenario.T == 6 and app.state.head.source.text == "a b c a b c"
        await pilot.press("q")
    assert "your session (1 edit, c = 1) is kept in" in app.session.message, app.session.message
    app = _resumed()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state.head.source.text == "a b c a b c" and app.state.scenario.T == 6

"""Issue 42 item 6: a pin never survives a change of scenario, whichever way it happens (the tour's
try it, open, undo, redo), and still survives the edits it is there to compare (`+`, then undo)."""

from __future__ import annotations

from attn_tui.core.builtins import builtin
from attn_tui.tui.actions import PIN_DROPPED
from attn_tui.tui.app import AttentionApp

SIZE = (120, 40)


def _names(app) -> str:
    return app.state.scenario.title


async def test_undo_after_the_tours_try_it_drops_the_pin(settle):
    app = AttentionApp(scenario=builtin("lesson-pipeline"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pipeline = _names(app)
        await app.run_action("do('tour.try_it', 'ex1')")  # exercise 1: the hand-crafted Q, K, pinned
        await settle(pilot)
        assert app.state.pin is not None and _names(app) != pipeline
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert _names(app) == pipeline
        assert app.state.pin is None  # ΔA would compare the pipeline with the hand-crafted A
        assert "ΔA" not in app.screen.query_one("#grid-A").border_title
        await pilot.press("ctrl+y")  # and forward again: the hand-crafted state, no stale pin either
        await settle(pilot)
        assert _names(app) != pipeline and app.state.pin is None


async def test_a_pin_of_an_opened_scenario_does_not_follow_undo_back(settle):
    app = AttentionApp(scenario=builtin("lesson-pipeline"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.run_action("do('files.open')")
        await settle(pilot)
        app.screen.query_one("#path").value = "box-kernel"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("P")  # pin the box kernel
        await settle(pilot)
        assert app.state.pin is not None
        await pilot.press("ctrl+z")  # back to the pipeline
        await settle(pilot)
        assert app.state.pin is None and app.state.scenario.W_Q.any()
        assert any(PIN_DROPPED in m for m in app.notes.messages())


async def test_the_pin_survives_the_edits_it_compares(settle):
    app = AttentionApp(scenario=builtin("lesson-pipeline"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("P", "plus", "plus")
        await settle(pilot)
        pinned = app.state.pin
        assert pinned is not None and "ΔA" in app.screen.query_one("#grid-A").border_title
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.state.pin is pinned  # undoing one `+` is an edit of the same scenario


async def test_after_resume_undo_drops_a_pin_across_another_scenario(state_home, settle):
    """A kept session writes no lineage: restored, its steps got one lineage, and a pin of the box kernel
    survived ctrl+z back to the pipeline (issue 51). Now each step that cannot be an edit of the one
    before (another title) starts a new one; an edit (c = 1.1 -> 1.21) keeps the pin."""
    from attn_tui.core import session_store as store
    from attn_tui.core.builtins import DEFAULT
    from attn_tui.tui.session import SessionKeeper

    box, pipeline = builtin("box-kernel"), builtin("lesson-pipeline")
    app = AttentionApp(scenario=pipeline)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keeper = SessionKeeper(store.state_folder(), builtin(DEFAULT), DEFAULT)
        edited = box.with_(c=1.21)
        k = store.Kept(edited, row=2, pin=(box.with_(c=1.1), 2), past=(pipeline, box.with_(c=1.1)))
        keeper.restore(app, k)
        await settle(pilot)
        assert app.state.pin is not None and "ΔA" in app.screen.query_one("#grid-A").border_title
        await pilot.press("ctrl+z")  # c back to 1.1: an edit of the box kernel, the pin compares it
        await settle(pilot)
        assert app.state.pin is not None and app.state.scenario.c == 1.1
        await pilot.press("ctrl+z")  # back to the pipeline: another scenario, the pin goes
        await settle(pilot)
        assert app.state.scenario.title == pipeline.title and app.state.pin is None
        assert "ΔA" not in app.screen.query_one("#grid-A").border_title
        assert any(PIN_DROPPED in m for m in app.notes.messages())

"""The one adapter for framework internals (attn_tui/tui/framework.py) still works with the
installed Textual and plotext: a release that renames a private name fails here."""

from __future__ import annotations

from textual.app import App

from attn_tui.tui import framework
from attn_tui.tui.app import AttentionApp


async def test_a_notification_is_posted_listed_and_withdrawn():
    app = App()
    async with app.run_test() as pilot:
        n = framework.post_notification(app, "hello [b]x[/b]", "title", "information", 30)
        await pilot.pause()
        assert n in framework.shown_notifications(app)
        assert str(framework.shown_notifications(app)[-1].message) == "title: hello [b]x[/b]"  # not markup
        framework.withdraw_notification(app, n)
        await pilot.pause()
        assert n not in framework.shown_notifications(app)
        framework.withdraw_notification(app, n)  # twice: no error


async def test_notes_replace_their_kind_and_keep_the_others():
    app = AttentionApp()
    async with app.run_test() as pilot:
        app.notes.note("first change", "change")
        app.notes.note("a refusal", "refusal")
        app.notes.note("second change", "change")
        await pilot.pause()
        assert "first change" not in app.notes.messages()
        assert {"second change", "a refusal"} <= set(app.notes.messages())


def test_plot_size_and_a_new_figure():
    from attn_tui.tui.widgets.bar_plot import plot_lines

    fig = framework.new_figure()
    fig.bar(["a", "b"], [1, 2], orientation="horizontal")
    for width, height in ((30, 6), (44, 9)):
        lines = plot_lines(fig, width, height)  # set_plot_size, then a plain build
        assert lines[-1] == "" and len(lines) == height + 1  # the build ends in a newline
        assert {len(line) for line in lines[:-1]} == {width}


async def test_first_frame_callback_runs_once():
    app = App()
    calls = []
    framework.on_first_frame(app, lambda: calls.append(1))
    async with app.run_test() as pilot:
        await pilot.pause()
        app.refresh()
        await pilot.pause()
    assert calls == [1]


async def test_the_palette_offers_one_quit_and_it_names_its_key():
    from textual.command import CommandList

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"quit")
        await pilot.app.screen.workers.wait_for_complete()
        await pilot.pause()
        found = app.screen.query_one(CommandList)
        prompts = [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]
        quits = [p for p in prompts if p.startswith("Quit")]
        assert len(quits) == 1 and "key q" in quits[0], prompts


async def test_withdrawn_notes_leave_no_holder_and_the_next_toast_is_on_screen():
    # Textual's ToastRack.show removes a withdrawn Toast but not its ToastHolder: 40 withdrawn
    # "computing" notes pushed the next warning below a 40-line screen
    from textual.widgets._toast import Toast, ToastHolder, ToastRack

    app = App()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for i in range(40):
            n = framework.post_notification(app, f"computing {i}", "", "information", 60)
            await pilot.pause()
            framework.withdraw_notification(app, n)
            await pilot.pause()
        framework.post_notification(app, "the warning", "", "warning", 60)
        await pilot.pause()
        await pilot.pause()
        rack = app.screen.get_child_by_type(ToastRack)
        assert len(rack.query(ToastHolder)) == 1
        (toast,) = rack.query(Toast)
        assert 0 <= toast.region.y and toast.region.bottom <= 24, toast.region


async def test_all_screens_holds_every_modes_screen():
    """framework.all_screens: the training screen is found from another mode (the session's exit note)."""
    from attn_tui.tui.screens.pipeline import PipelineScreen
    from attn_tui.tui.screens.train import TrainScreen

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("T")
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        kinds = {type(s) for s in framework.all_screens(app)}
        assert isinstance(app.screen, PipelineScreen) and TrainScreen in kinds


async def test_reported_size_is_the_drivers():
    app = AttentionApp()
    async with app.run_test(size=(100, 30)):
        assert framework.reported_size(app) == (100, 30)

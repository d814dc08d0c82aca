"""The one adapter for framework internals (attn_tui/tui/framework.py) still works with the
installed Textual and plotext: a release that renames a private name fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
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


def _pending(screen) -> bool:
    """Whether the screen holds work for its next update tick (a layout, a repaint, dirty widgets)."""
    return bool(screen._layout_required or screen._repaint_required or screen._dirty_widgets)


async def test_update_screen_now_does_at_ready_what_the_first_tick_would():
    """A MODES home screen is laid out inside Textual's start-up batch and its frame held for the
    first update tick: at Ready that work is pending, and update_screen_now leaves none of it."""
    from textual.screen import Screen
    from textual.widgets import Static

    class Home(Screen):
        def compose(self):
            yield Static("home")

    seen = []

    class Modes(App):
        MODES = {"home": Home}
        DEFAULT_MODE = "home"

        def on_ready(self) -> None:
            seen.append(_pending(self.screen))
            framework.update_screen_now(self)
            seen.append(_pending(self.screen))

    async with Modes().run_test() as pilot:
        await pilot.pause()
    assert seen == [True, False]


async def test_the_explorer_writes_its_first_screen_at_ready():
    seen = []
    app = AttentionApp()
    update = framework.update_screen_now

    def watched(a):
        update(a)
        seen.append(_pending(a.screen))

    framework.update_screen_now = watched
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
    finally:
        framework.update_screen_now = update
    assert seen == [False]


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


@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
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
        await pilot.press("L")
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        kinds = {type(s) for s in framework.all_screens(app)}
        assert isinstance(app.screen, PipelineScreen) and TrainScreen in kinds


async def test_reported_size_is_the_browsers_and_none_in_a_terminal():
    """Under the web driver, the size the browser last sent; with any other driver None: a terminal's
    driver keeps its start size while SIGWINCH resizes the app (tests/tui/test_resize_pty.py)."""
    from types import SimpleNamespace

    app = AttentionApp()
    async with app.run_test(size=(100, 30)):
        assert app._driver._size == (100, 30) and not app._driver.is_web  # a start size it keeps
        assert framework.reported_size(app) is None
    web = SimpleNamespace(is_web=True, _size=(120, 40))  # the real web driver: tests/tui/test_serve.py
    assert framework.reported_size(SimpleNamespace(_driver=web)) == (120, 40)


async def test_a_component_class_is_styled_once_and_shared():
    """component_class_styles: the style sheet applied to a component class under a node;
    use_component_styles: a widget then reads that class from the shared styles, and a new set
    replaces the Rich styles it derived from the old one."""
    from textual.widgets import Static

    class Styled(App):
        CSS = "Static > .demo--hot { color: #ff0000; } Static > .demo--cold { color: #0000ff; }"

        def compose(self):
            yield Static("x")

    app = Styled()
    async with app.run_test():
        widget = app.query_one(Static)
        hot, cold = (framework.component_class_styles(widget, f"demo--{n}") for n in ("hot", "cold"))
        assert hot.color.rgb == (255, 0, 0) and cold.color.rgb == (0, 0, 255)
        framework.use_component_styles(widget, {"demo--x": hot})
        assert widget.get_component_rich_style("demo--x").color.triplet == (255, 0, 0)
        framework.use_component_styles(widget, {"demo--x": cold})  # not the cached red
        assert widget.get_component_rich_style("demo--x").color.triplet == (0, 0, 255)


async def test_a_container_is_laid_out_again_at_the_same_size():
    """clear_arrangement_cache (through PaneColumn.set_lines): two panes side by side, then stacked,
    at the same size; without it the page kept its cached arrangement."""
    from textual.widgets import Static

    from attn_tui.tui.screens.pane_lines import PaneColumn

    class Lines(App):
        CSS = "Static { width: 10; height: 3; }"

        def compose(self):
            with PaneColumn(id="page"):
                yield Static("a", id="a")
                yield Static("b", id="b")

    app = Lines()
    async with app.run_test(size=(40, 12)) as pilot:
        page = app.query_one(PaneColumn)
        page.set_lines([("a", "b")])
        await pilot.pause()
        a, b = app.query_one("#a"), app.query_one("#b")
        assert a.region.y == b.region.y and b.region.x == a.region.right
        page.set_lines([("a",), ("b",)])
        await pilot.pause()
        assert b.region.y == a.region.bottom and b.region.x == a.region.x


async def test_visible_widgets_are_listed_with_their_regions():
    from textual.widgets import Static

    class One(App):
        def compose(self):
            yield Static("hello", id="one")

    app = One()
    async with app.run_test(size=(30, 5)):
        shown = framework.visible_widgets(app.screen)
        region, clip = shown[app.query_one("#one")]
        assert region == app.query_one("#one").region and clip.contains_region(region)


FRAMEWORKS = ("textual", "rich")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _targets(node):
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _framework_privates(wanted: set[str]) -> set[str]:
    """The private names of ``wanted`` that Textual and Rich define: functions, classes, attributes set.
    Only their files that hold one of those names as text are parsed (a definition is text there too):
    parsing every file of both took ~15 s of CPU."""
    import importlib

    found = set()
    words = re.compile("|".join(sorted(map(re.escape, wanted)))) if wanted else None
    for package in FRAMEWORKS:
        for path in Path(importlib.import_module(package).__file__).parent.rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if words is None or not words.search(text):
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.add(node.name)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    found.add(node.attr)
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    found |= {t.id for t in _targets(node) if isinstance(t, ast.Name)}
    return {name for name in found if _private(name) and name in wanted}


def _our_privates(trees) -> set[str]:
    """The private names the package declares itself: methods, classes, module and class variables,
    and attributes set in an ``__init__`` (what an object keeps is declared there)."""
    found = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
            if isinstance(node, (ast.Module, ast.ClassDef)):
                for stmt in node.body:
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                        found |= {t.id for t in _targets(stmt) if isinstance(t, ast.Name)}
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                found |= {
                    n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                }
    return {name for name in found if _private(name)}


def _other_modules(tree) -> set[str]:
    """Names bound to modules that are not a framework's (``os`` in ``os._exit``)."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] not in FRAMEWORKS
    }


def test_no_module_but_framework_py_reads_a_private_textual_or_rich_name():
    import attn_tui

    root = Path(attn_tui.__file__).parent
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(root.rglob("*.py"))}
    used = {
        n.attr for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.Attribute) and _private(n.attr)
    }
    theirs = _framework_privates(used - _our_privates(trees.values()))
    found = []
    for path, tree in trees.items():
        if path.name == "framework.py":
            continue
        others = _other_modules(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in theirs:
                if not (isinstance(node.value, ast.Name) and node.value.id in others):
                    found.append(f"{path.relative_to(root)}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FRAMEWORKS:
                if any(_private(part) for part in node.module.split(".")):
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.module}")
    assert not found, f"private framework names outside tui/framework.py (add a function there): {found}"

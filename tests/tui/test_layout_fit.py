"""What a new user's review found, kept fixed: arrows on a scrolling page, notes that hid the
status line, a cursor out of view, the inspector after resizes, the chart's bars and labels,
and the chart pushed off screen by the explanation line."""

from __future__ import annotations

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.views.inspector import inspector_lines as explain


@pytest.mark.slow
async def test_up_down_select_the_row_with_the_chart_focused_on_a_scrolling_page(settle):
    for scenario, size in ((None, (40, 12)), ("cross-attention", (120, 40))):
        app = AttentionApp(scenario=builtin(scenario or "lesson-pipeline").with_(focus_row=1))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            page = app.screen.query_one("#pipeline")
            assert page.max_scroll_y > 0, (scenario, size)  # the page scrolls: its keys could steal ↑/↓
            app.screen.query_one("#chart").focus()
            await settle(pilot)
            await pilot.press("down", "down")
            await settle(pilot)
            assert app.state.row == 2, (scenario, size)
            await pilot.press("up")
            await settle(pilot)
            assert app.state.row == 1
            await pilot.press("pagedown")  # the page still scrolls with page keys
            await settle(pilot)
            assert page.scroll_y > 0


async def test_the_explanation_on_screen_at_launch_is_not_announced_again_by_the_first_key(settle):
    app = AttentionApp(scenario=builtin("float16-overflow"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.state.explanations and app.screen.query_one("#explain").display
        await pilot.press("plus")
        await settle(pilot)
        assert "What happened" not in app.notes.titles()
        app.set_state(app.state.with_scenario(dtype="float64"))  # nothing left to explain
        await settle(pilot)
        assert not app.screen.query_one("#explain").display
        app.set_state(app.state.with_scenario(dtype="float16"))  # new lines: a note says so
        await settle(pilot)
        assert "What happened" in app.notes.titles()


async def test_notes_rise_above_the_status_line_and_the_key_bar(settle):
    app = AttentionApp(scenario=builtin("cross-attention"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("m")  # refused, with a note
        await settle(pilot)
        toasts = list(app.screen.query("Toast"))
        status = app.screen.query_one("#status").region
        assert toasts
        assert all(t.region.bottom <= status.y for t in toasts), [t.region for t in toasts]


async def test_the_cursor_row_stays_in_view_when_the_explanation_leaves_little_room(settle):
    app = AttentionApp(scenario=builtin("padding-nan"))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#grid-A")
        grid.focus()
        await settle(pilot)
        page = app.screen.query_one("#pipeline").scrollable_content_region
        for row in range(1, 5):
            await pilot.press("down")
            await settle(pilot)
            assert app.state.row == row
            y = grid.content_region.y + 1 + row - int(grid.scroll_offset.y)
            assert page.y <= y < page.bottom, (row, y, page)


@pytest.mark.slow
async def test_the_inspector_keeps_every_line_after_resizes(settle):
    app = AttentionApp(scenario=builtin("float16-overflow"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down", "down")
        for size in ((40, 12), (80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
        inspector = app.screen.query_one("#inspector")
        shown = "".join(inspector.render_line(y).text.strip() for y in range(inspector.size.height))
        expected = "".join(x for x in explain(app.state) if x)
        assert shown.replace(" ", "") == expected.replace(" ", "")


async def test_every_bar_is_labelled_and_equally_thick_when_the_chart_has_room_to_spare(settle, chart_lines):
    app = AttentionApp(scenario=builtin("cross-attention"))  # 3 keys in a 10-line stacked chart
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = [ln for ln in chart_lines(app, "probs") if "█" in ln or "▆" in ln]  # ▆: a bar under another key's
        labelled = [ln for ln in lines if ln.lstrip().startswith(("y1", "y2", "y3"))]
        assert sorted(ln.split()[0] for ln in labelled) == ["y1", "y2", "y3"]  # each key once, on its bar
        assert len(lines) % 3 == 0 and len(lines) // 3 == 2  # 8 free lines: every bar 2 lines thick


async def test_a_space_between_every_label_and_its_bar(settle, chart_lines):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("m", "j", "j", "j")  # no masked key: no "×" label to pad the others
        await settle(pilot)
        for which in ("scores", "probs"):
            for ln in chart_lines(app, which):
                if ("█" in ln or "▆" in ln) and ln.lstrip().startswith("t"):
                    label = ln.lstrip().replace("▆", "█").split("█")[0]
                    assert label.endswith(" "), (which, ln)


async def test_the_chart_stays_on_screen_at_120x40_with_the_explanation_line(settle, on_screen):
    for name in ("padding-nan", "float16-overflow"):
        app = AttentionApp(scenario=builtin(name))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.screen.query_one("#explain").display
            chart = app.screen.query_one("#chart").region
            page = app.screen.query_one("#pipeline").region
            assert chart.y >= page.y and chart.bottom <= page.bottom, (name, chart, page)
            assert on_screen(app, "A") and on_screen(app, "O")


async def test_text_lines_wrap_to_the_width_layout_asks_for_and_then_to_their_own():
    """Layout asks for the height at a width the widget does not have yet; the lines then
    drawn are wrapped for the widget's real width, none lost (the inspector after resizes)."""
    from rich.text import Text
    from textual.app import App
    from textual.geometry import Size

    from attn_tui.tui.widgets.text_lines import TextLines

    words = " ".join(f"w{i:02d}" for i in range(30))  # 30 × 4 cells = 119 cells with spaces

    class One(App):
        def compose(self):
            yield TextLines(id="t")

    app = One()
    async with app.run_test(size=(40, 10)) as pilot:
        w = app.query_one("#t", TextLines)
        w.set_text(Text(words))
        await pilot.pause()
        assert w.get_content_height(None, Size(40, 10), 20) == 6  # 5 words of 4 cells in 20 columns
        shown = " ".join(w.render_line(y).text.strip() for y in range(w.size.height)).split()
        assert shown == words.split() and w.size.width == 40


def test_a_non_default_dtype_or_fill_stays_in_a_narrow_status_line():
    from attn_tui.tui.state import State
    from attn_tui.tui.views.status import status_view
    from attn_tui.tui.widgets.status import status_text

    assert "f16" in status_text(status_view(State(builtin("float16-overflow"))), 40).plain
    lesson = status_text(status_view(State(builtin("lesson-pipeline"))), 40).plain
    assert "f64" not in lesson and "row t1 mat" in lesson  # the default dtype gives way first


def test_the_entropy_inspector_of_a_nan_row_has_no_empty_equation():
    from attn_tui.tui.state import State

    st = State(builtin("padding-nan")).with_(cursor=("H", 0, 1))
    lines = [x for x in explain(st) if x]
    assert 0 in st.trace.nan_rows and lines
    assert all(x.strip() != "=" for x in lines), lines


@pytest.mark.slow
async def test_help_is_one_text_not_a_widget_per_table_cell(settle):
    """Textual's Markdown made a widget per cell of the keys table (`?` took ~1.7 s)."""
    from attn_tui.tui import keys
    from attn_tui.tui.screens.help import HelpScreen

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert len(list(app.screen.walk_children())) < 10
        body = app.screen.query_one("#help-body")
        text = []
        while True:  # every key's description, page by page
            text += [
                app.screen.query_one("#help-text").render_line(y).text
                for y in range(int(body.scroll_y), int(body.scroll_y) + body.size.height)
            ]
            if body.scroll_y >= body.max_scroll_y:
                break
            await pilot.press("pagedown")
            await settle(pilot)
        joined = " ".join(text)
        assert all(k.description in joined for k in keys.all_keys()), [
            k.description for k in keys.all_keys() if k.description not in joined
        ]


async def test_text_cut_by_the_pane_height_ends_in_an_ellipsis():
    from rich.text import Text
    from textual.app import App

    from attn_tui.tui.widgets.text_lines import TextLines

    class Two(App):
        CSS = "#t { height: 2; }"

        def compose(self):
            yield TextLines(id="t")

    app = Two()
    async with app.run_test(size=(20, 6)) as pilot:
        w = app.query_one("#t", TextLines)
        w.set_text(Text("one\ntwo\nthree"))
        await pilot.pause()
        assert [w.render_line(y).text.rstrip() for y in range(2)] == ["one", "two" + " " * 16 + "…"]
        w.set_text(Text("one\ntwo"))  # it all fits: no mark
        await pilot.pause()
        assert [w.render_line(y).text.rstrip() for y in range(2)] == ["one", "two"]


async def test_a_notice_on_the_training_screen_leaves_the_probe_and_the_curves_in_view(settle):
    """A notice covered the probe's A header for seconds (issue 31): notices are a line or two at
    the top of the screen, over the inputs' frame, never over the probe's grid or the curves."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        app.notes.say("This run is done: r resets it (with the controls' values).", timeout=30)  # train.py's
        await settle(pilot)
        toasts = [t.region for t in app.screen.query("Toast")]
        assert toasts
        for pane in ("#train-probe", "#train-curves"):
            region = app.screen.query_one(pane).region
            assert not any(t.overlaps(region) for t in toasts), (pane, region, toasts)

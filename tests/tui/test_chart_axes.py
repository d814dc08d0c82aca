"""Turn the knob and see it: five `+` lengthen row t4's t1 score bar against a fixed axis,
and the softmax row sharpens while H falls (issue: what the explorer shows is true at first sight)."""

import re

from attn_tui.tui.app import AttentionApp

BAR = re.compile(r"[█▆▉▊▋▌▍▎▏]+")


def bar_length(lines: list[str], label: str) -> int:
    line = next(x for x in lines if x.strip().startswith(label))
    m = BAR.search(line)
    return len(m.group(0)) if m else 0


async def test_five_plus_lengthen_the_bar_and_lower_h(settle, chart_lines):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_state(app.state.with_(row=3))
        await settle(pilot)
        before = bar_length(chart_lines(app, "scores"), "t1")
        h_before = float(app.state.trace.H[3])
        await pilot.press(*["plus"] * 5)
        await settle(pilot)
        after = bar_length(chart_lines(app, "scores"), "t1")
        assert after > before * 1.4  # 1.1**5 = 1.61 times the score, on the same axis
        assert float(app.state.trace.H[3]) < h_before
        assert "H=" in app.screen.query_one("#chart").border_title


async def test_the_first_screen_says_where_to_start_until_a_key(settle, make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        status = app.screen.query_one("#status")
        assert "t: tour" in status.plain or "press t for the tour" in status.plain
        await pilot.press("j")
        await settle(pilot)
        assert "tour" not in status.plain and "row t2" in status.plain
        await pilot.press("l", "p")  # back on the pipeline: not shown again this session
        await settle(pilot)
        assert "tour" not in app.screen.query_one("#status").plain


async def test_a_large_screen_grows_the_chart_and_thickens_the_bars(settle, chart_lines):
    for size, thick in (((120, 40), False), ((200, 60), True)):
        app = AttentionApp()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            chart = app.screen.query_one("#chart")
            lines = [x for x in chart_lines(app, "probs") if BAR.search(x)]
            if thick:  # more lines and columns than the CSS's 8 × 76, and bars more than a line tall
                assert chart.outer_size.height > 8 and chart.outer_size.width > 76 and len(lines) > 5
            else:  # the design size keeps the CSS sizes: one line a bar
                assert (chart.outer_size.height, chart.outer_size.width) == (8, 76) and len(lines) == 4  # t1..t4 open


async def test_j_on_the_last_row_redraws_nothing(settle, make_app):
    app = make_app(row=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        seen = []
        app.watch(app, "state", lambda s: seen.append(s), init=False)
        before = app.state
        await pilot.press("j")
        await settle(pilot)
        assert app.state is before and seen == []  # no new state, so no pane is handed anything
        await pilot.press("k")
        await settle(pilot)
        assert app.state.row == 3 and len(seen) == 1


async def test_scores_near_the_float64_limit_draw_on_every_screen(settle):
    """1e308 in Q: the fixed axis gives way to a scaled one, the rank chart scales too."""
    from attn_tui.core.scenario import Scenario

    s = Scenario(title="huge", tokens=("a", "b"), Q=[[1e308, 0], [0, 1]], K=[[1, 0], [0, 1]])
    app = AttentionApp(scenario=s)
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("j", "k", "P", "u", "l", "j", "p"):
            await pilot.press(key)
            await settle(pilot)
            assert app.return_code is None, key


async def test_query_row_grids_start_at_the_same_row(settle):
    from attn_tui.bench import random_scenario
    from attn_tui.core.matrices import MATRICES

    app = AttentionApp(scenario=random_scenario(64))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*["j"] * 4)
        await settle(pilot)
        grids = [g for g in app.screen.query("MatrixGrid") if g.display and MATRICES[g.matrix].row_linked]
        tops = {g.matrix: int(g.scroll_offset.y) for g in grids}
        assert len(set(tops.values())) == 1 and max(tops.values()) > 0, tops  # scrolled, and together


def test_a_tick_a_hair_below_zero_reads_0_not_minus_0():
    """plotext labels the middle tick of (-6.0, 5.9), -0.05, "-0.0"; the axis line says "0.0". A key
    labelled "-0" on a bar line is the user's text and stays as it is."""
    from textual_plotext import PlotextPlot

    from attn_tui.tui.widgets.bar_plot import ANSI, plot_lines

    def figure():
        p = PlotextPlot().plt
        p.bar(["-0", "t2", "t3"], [1.0, -2.0, 3.0], orientation="horizontal", width=0.2)
        p.xlim(-6.0, 5.9)
        p.frame(False)
        return p

    raw = figure()
    plot_lines(raw, 38, 8)  # sized and themed as the app builds it
    assert "-0.0" in ANSI.sub("", raw.build())  # plotext's own axis: the case this guards
    lines = [x for x in plot_lines(figure(), 38, 8) if x.strip()]
    assert "-0.0" not in lines[-1] and re.search(r"(?<![\d.-])0\.0(?![\d])", lines[-1]), lines[-1]
    assert lines[-1].split() == ["-6.0", "-3.0", "0.0", "2.9", "5.9"]
    assert any(x.startswith("-0 ") for x in lines[:-1])  # the key's label untouched

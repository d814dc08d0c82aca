"""Turn the knob and see it: five `+` lengthen row t4's t1 score bar against a fixed axis,
and the softmax row sharpens while H falls (issue: what the explorer shows is true at first sight)."""

import re

from attn_tui.tui.app import AttentionApp

BAR = re.compile(r"[█▉▊▋▌▍▎▏]+")


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
            lines = [x for x in chart_lines(app, "probs") if "█" in x]
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
    from attn_tui.core.matrices import MATRICES
    from attn_tui.tui.bench import random_scenario

    app = AttentionApp(scenario=random_scenario(64))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*["j"] * 4)
        await settle(pilot)
        grids = [g for g in app.screen.query("MatrixGrid") if g.display and MATRICES[g.matrix].row_linked]
        tops = {g.matrix: int(g.scroll_offset.y) for g in grids}
        assert len(set(tops.values())) == 1 and max(tops.values()) > 0, tops  # scrolled, and together

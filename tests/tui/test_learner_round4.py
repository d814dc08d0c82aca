"""What a newcomer tripped on (issue 51, item 5), through the pilot: the 80x24 pipeline's key bar keeps
`T Tokens`, and a notice on the token and model views covers neither their header nor their text."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref


def _demo() -> AttentionApp:
    s, ref = open_ref("induction-demo")
    return AttentionApp(scenario=s, head=ref)


@pytest.mark.parametrize("app", [AttentionApp, _demo], ids=["lesson", "induction-demo"])
async def test_the_80_by_24_key_bar_keeps_the_token_view(app, settle):
    app = app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one("#keybar").render_line(0).text
        assert "T Tokens" in bar and "? Help" in bar and "^p palette" in bar, bar


@pytest.mark.parametrize(("key", "top"), [("T", ("#tokens-header", "#token-text")), ("M", ("#model-header",))])
async def test_a_notice_leaves_the_views_header_and_text_alone(key, top, settle):
    app = _demo()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        app.notes.say("a notice of two lines, long enough to wrap the way a real one does when it is said here")
        await settle(pilot)
        await pilot.pause()
        toasts = [t.region for t in app.screen.query("Toast") if t.region.area]
        assert toasts, "no notice was drawn"
        for name in (*top, "#status", "#keybar"):
            region = app.screen.query_one(name).region
            assert not any(region.overlaps(t) for t in toasts), (name, region, toasts)


async def test_under_no_color_the_model_views_legend_speaks_of_no_colour(monkeypatch, settle):
    """Issue 51: under NO_COLOR the model view's legend said "shaded by weight (A's colour scale)"."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = _demo()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("M")
        await settle(pilot)
        legend = app.screen.query_one("#model-legend")
        words = " ".join(legend.render_line(y).text.strip() for y in range(legend.size.height))
        assert "colour scale" in words and "no colour scale" in words and "shaded" not in words, words

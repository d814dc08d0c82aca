"""The explorer's style sheet is parsed once before the first frame, and again for a new theme.

Textual calls refresh_css when it starts the home screen from MODES, with the same variables:
that emptied the parse cache and parsed app.tcss three times (themes.ParseOnceStylesheet).
"""

from __future__ import annotations

import textual.css.stylesheet as stylesheet_module

from attn_tui.tui.app import AttentionApp


def _count_app_tcss_parses(monkeypatch) -> list[int]:
    parsed: list[int] = []
    parse = stylesheet_module.parse

    def counting(scope, css, read_from, **kw):
        if read_from and str(read_from[0]).endswith("app.tcss"):
            parsed.append(1)
        return parse(scope, css, read_from, **kw)

    monkeypatch.setattr(stylesheet_module, "parse", counting)
    return parsed


async def test_app_tcss_is_parsed_once_at_start(monkeypatch):
    parsed = _count_app_tcss_parses(monkeypatch)
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert len(parsed) == 1


async def test_a_new_theme_is_still_parsed_and_applied(monkeypatch):
    parsed = _count_app_tcss_parses(monkeypatch)
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        status = app.screen.query_one("#status")
        dark = status.styles.background
        app.theme = "textual-light"
        await pilot.pause()
        assert len(parsed) == 2  # the new theme's variables: parsed again
        assert status.styles.background != dark  # $panel of the light theme
        app.theme = "textual-light"  # the same theme again: nothing to parse
        await pilot.pause()
        assert len(parsed) == 2

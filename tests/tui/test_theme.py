"""Themes: `--theme NAME` (any Textual theme; an unknown one is one line listing them, exit 2), the
palette's theme picker, and every colour pair of the grids, the charts and the lesson's warning
lines readable in the default dark theme and in textual-light (WCAG contrast of text on its ground)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.color import Color

from attn_tui.cli import explorer, main
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.themes import theme_names
from attn_tui.tui.widgets.palette import DIV, DIV_BUCKETS, ROLES, SEQ, SEQ_BUCKETS

THEMES = ["textual-dark", "textual-light"]
TEXT, GRAPHIC = 4.5, 3.0  # WCAG AA: body text; bars and other non-text marks


def luminance(color: Color) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(x / 255) for x in color.get_truecolor())
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Color, b: Color) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_unknown_theme_is_one_line_exit_2(capsys):
    assert main(["--theme", "no-such-theme"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--theme 'no-such-theme': no such theme" in err
    assert all(name in err for name in theme_names())
    assert "textual-light" in theme_names() and "textual-dark" in theme_names()


async def test_palette_offers_the_theme_picker():
    app = AttentionApp()
    async with app.run_test(size=(120, 40)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Theme" in titles
        assert "Quit" not in titles  # the key table's own Quit (with its key) replaces Textual's


@pytest.mark.parametrize("theme", THEMES)
async def test_every_grid_colour_reads(theme, settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = theme
        await settle(pilot)
        grid = app.screen.query_one("#grid-A")
        low = []
        for role in ROLES + SEQ + DIV:
            if role in ("gap", "selected-row"):  # no text of its own / only bold+underline over a cell
                continue
            s = grid.get_component_rich_style(f"matrix-grid--{role}")
            need = GRAPHIC if role == "blocked" else TEXT  # a masked cell is muted on purpose, still legible
            if contrast(s.color, s.bgcolor) < need:
                low.append(
                    f"{role} (needs {need}) {s.color.name} on {s.bgcolor.name}: {contrast(s.color, s.bgcolor):.2f}"
                )
        assert not low, f"{theme}: text below its contrast on its ground: {low}"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.slow
async def test_charts_and_warnings_read(theme, settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = theme
        await settle(pilot)
        plot = app.screen.query_one("#chart-probs")
        ground = plot.rich_style.bgcolor
        text = plot.get_component_rich_style("bar-plot--text").color
        bar = plot.get_component_rich_style("bar-plot--bar").color
        assert contrast(text, ground) >= TEXT, (text.name, ground.name)
        assert contrast(bar, ground) >= GRAPHIC, (bar.name, ground.name)
        explain = app.screen.query_one("#explain").rich_style
        assert contrast(explain.color, explain.bgcolor) >= TEXT, (explain.color.name, explain.bgcolor.name)


@pytest.mark.long
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.slow
async def test_orange_lines_read(theme, settle):
    """The lines in the warning colour: the tour's try-it, the help's scenario, the training's scale line."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = theme
        for key, selector in (("t", "#tour-try"), ("L", "#train-scale"), ("question_mark", "#help-scenario")):
            await pilot.press(key)
            await settle(pilot)
            style = app.screen.query_one(selector).rich_style
            assert contrast(style.color, style.bgcolor) >= TEXT, (theme, selector, style.color.name, style.bgcolor.name)


def test_theme_flag_reaches_the_explorer(monkeypatch):
    """`attn-tui --theme textual-light` runs the explorer in that theme (App.run replaced: no terminal)."""
    seen = []
    monkeypatch.setattr(AttentionApp, "run", lambda self: seen.append(self.theme))
    monkeypatch.setattr(explorer, "need_terminal", lambda: None)  # pytest's stdin and stdout are no terminal
    assert main(["--theme", "textual-light"]) == 0
    assert main([]) == 0
    assert seen == ["textual-light", "textual-dark"]


def test_app_tcss_defines_the_buckets_the_palette_counts():
    """The grids' colours are defined once, in app.tcss; widgets/palette.py only counts them: the
    dark rules style seq-0 .. seq-(SEQ_BUCKETS-1) and div-0 .. div-(DIV_BUCKETS-1), each once, and
    the light theme restyles every div bucket."""
    import attn_tui.tui

    css = (Path(attn_tui.tui.__file__).parent / "app.tcss").read_text(encoding="utf-8")

    def styled(prefix: str, ramp: str) -> list[int]:
        return sorted(int(i) for i in re.findall(rf"^{prefix}MatrixGrid > \.matrix-grid--{ramp}-(\d+) \{{", css, re.M))

    assert styled("", "seq") == list(range(SEQ_BUCKETS))
    assert styled("", "div") == list(range(DIV_BUCKETS))
    assert styled(r"App\.-light-mode ", "div") == list(range(DIV_BUCKETS))
    from attn_tui.tui.widgets import palette

    assert not re.search(r"#[0-9a-fA-F]{6}", Path(palette.__file__).read_text(encoding="utf-8"))  # no copy there

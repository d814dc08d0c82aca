"""How the heads screen's pictures read in each theme and without colour (head_tiles.py): viridis by
weight, reversed on a light ground so the heavy weights are the dark ones there, and shade glyphs
that draw the pattern alone when NO_COLOR takes the colours away."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.widgets.head_tiles import SHADES

REPEAT = "q w e r t y q w e r t y"


def _app() -> AttentionApp:
    s, ref = open_ref("induction-demo", REPEAT, layer=1)
    return AttentionApp(scenario=s, head=ref)


async def _tiles(pilot, settle, theme: str | None = None):
    """The heads screen's tile widget, once its tiles are drawn (in ``theme`` when given)."""
    if theme:
        pilot.app.theme = theme
    await settle(pilot)
    await pilot.press("h")
    await settle(pilot)
    assert isinstance(pilot.app.screen, HeadsScreen)
    tiles = pilot.app.screen.query_one("#head-tiles")
    assert tiles.tiles
    return tiles


def _glyph_cells(tiles) -> list:
    """(glyph, style) of every picture cell on screen (the shade glyphs but the blank)."""
    return [
        (seg.text[0], seg.style)
        for y in range(tiles.size.height)
        for seg in tiles.render_line(y)
        if seg.text and seg.text[0] in SHADES[1:] and set(seg.text) == {seg.text[0]}
    ]


def _lightness(style) -> float:
    r, g, b = style.color.get_truecolor()
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("theme, heavy_is_darker", [("textual-dark", False), ("textual-light", True)])
async def test_heavy_weights_are_light_on_a_dark_ground_and_dark_on_a_light_one(settle, theme, heavy_is_darker):
    async with _app().run_test(size=(120, 40)) as pilot:
        cells = _glyph_cells(await _tiles(pilot, settle, theme))
    light = [_lightness(style) for glyph, style in cells if glyph == SHADES[1]]  # the lightest weights drawn
    heavy = [_lightness(style) for glyph, style in cells if glyph == SHADES[-1]]  # the heaviest
    assert light and heavy, "the layer's pictures hold both ends of the scale"
    assert (max(heavy) < min(light)) if heavy_is_darker else (min(heavy) > max(light))


async def test_without_colour_the_glyphs_alone_draw_the_pattern(settle, monkeypatch):
    async with _app().run_test(size=(120, 40)) as pilot:
        coloured = [(g, None) for g, _ in _glyph_cells(await _tiles(pilot, settle))]
    monkeypatch.setenv("NO_COLOR", "1")
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        mono = [(g, None) for g, _ in _glyph_cells(await _tiles(pilot, settle))]
        assert app.no_color
    assert mono == coloured  # the same glyphs where the colours were
    assert {g for g, _ in mono} >= set(SHADES[1:]), "every shade of weight is drawn"

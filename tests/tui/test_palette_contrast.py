"""The grids' colours as a terminal shows them, in each colour system Textual emits: truecolor,
256 (Rich's downgrade to xterm's palette) and 16 (Rich's downgrade to an ANSI number, shown in
xterm's default palette, as TERM=xterm). Every digit keeps >= 3:1 WCAG contrast with its cell in
every system (4.5:1 in truecolor and 256), and the diverging map's lightness and chroma rise with
|value| on both sides after the 256-colour downgrade as before it (issue 31: A's 0.465 cells were
white on cyan at 16 colours, ~2:1; the 256-colour map went olive, grey-mauve, red)."""

from __future__ import annotations

import math

import pytest
from rich.color import Color, ColorSystem

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.palette import DIV, ROLES, SEQ
from tests.tui.test_theme import THEMES, contrast

XTERM16 = (  # xterm's default palette (its 16 ANSI colours)
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
)  # fmt: skip
SYSTEMS = {"truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT, "16": ColorSystem.STANDARD}
NEED = {"truecolor": 4.5, "256": 4.5, "16": 3.0}


def shown(colour: Color, system: ColorSystem) -> Color:
    """The colour the terminal shows for ``colour`` sent in ``system``."""
    low = colour.downgrade(system)
    if system == ColorSystem.STANDARD:
        return Color.parse(XTERM16[low.number])
    return Color.from_triplet(low.get_truecolor())


def lab_lc(colour: Color) -> tuple[float, float]:
    """CIELAB lightness and chroma (D65) of ``colour``."""

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(x / 255) for x in colour.get_truecolor())
    x, y, z = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, math.hypot(500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


async def _styles(theme: str, settle) -> dict:
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = theme
        await settle(pilot)
        grid = app.screen.query_one("#grid-A")
        return {r: grid.get_component_rich_style(f"matrix-grid--{r}") for r in ROLES + SEQ + DIV}


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.slow
async def test_every_digit_reads_in_every_colour_system(theme, settle):
    styles = await _styles(theme, settle)
    low = []
    for role, s in styles.items():
        if role in ("gap", "selected-row"):  # no text of its own / only bold+underline over a cell
            continue
        for name, system in SYSTEMS.items():
            need = 3.0 if role == "blocked" else NEED[name]
            ratio = contrast(shown(s.color, system), shown(s.bgcolor, system))
            if ratio < need:
                low.append(f"{role} at {name}: {s.color.name} on {s.bgcolor.name} {ratio:.2f} < {need}")
    assert not low, low


async def test_the_diverging_map_rises_with_the_value_in_truecolor_and_256(settle):
    styles = await _styles("textual-dark", settle)
    grounds = [styles[d].bgcolor for d in DIV]
    mid = len(grounds) // 2
    for name in ("truecolor", "256"):
        lc = [lab_lc(shown(g, SYSTEMS[name])) for g in grounds]
        for side in (lc[mid::-1], lc[mid:]):  # from the neutral outwards: negatives, positives
            lightness, chroma = [p[0] for p in side], [p[1] for p in side]
            assert all(b > a + 3 for a, b in zip(lightness, lightness[1:])), (name, [round(v) for v in lightness])
            assert all(b > a + 2 for a, b in zip(chroma, chroma[1:])), (name, [round(v) for v in chroma])

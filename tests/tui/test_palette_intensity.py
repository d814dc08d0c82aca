"""The grids' palettes: intensity rises with |value|, in CIELAB lightness and chroma, in the
dark theme and the light one (so O's 0.870 looks stronger than its 0.465, K's 3 than its 1)."""

from __future__ import annotations

import math

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.palette import BARS, DIV, SEQ


def lab(rgb) -> tuple[float, float]:
    """(L*, C*) of an sRGB triplet (D65)."""

    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(x)) for x in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, math.hypot(500 * (fx - fy), 200 * (fy - fz))


async def grounds(theme: str, names) -> list[tuple[float, float]]:
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = theme
        await pilot.pause()
        grid = app.screen.query_one("#grid-S")
        return [lab(grid.get_component_rich_style(f"matrix-grid--{n}").bgcolor.get_truecolor()) for n in names]


@pytest.mark.parametrize("theme, darker_is_stronger", [("textual-dark", False), ("textual-light", True)])
async def test_diverging_intensity_rises_with_the_magnitude_on_both_sides(theme, darker_is_stronger):
    lc = await grounds(theme, DIV)
    mid = len(DIV) // 2
    for side in (lc[mid::-1], lc[mid:]):  # centre outwards: to the most negative, to the most positive
        chroma = [c for _, c in side]
        light = [-L if darker_is_stronger else L for L, _ in side]
        assert chroma == sorted(chroma) and len(set(chroma)) == len(chroma), (theme, chroma)
        assert light == sorted(light) and len(set(light)) == len(light), (theme, light)


async def test_viridis_lightness_rises_with_the_weight():
    lightness = [L for L, _ in await grounds("textual-dark", SEQ)]
    assert lightness == sorted(lightness)


def test_the_legend_names_the_range_of_its_colours():
    import numpy as np

    from attn_tui.tui.widgets.palette import legend

    lo, cells, hi = legend("seq", np.eye(2), 8)
    assert (lo, hi) == ("0", "1") and cells[0] == 0 and cells[-1] == len(SEQ) - 1 and len(cells) == 5
    lo, cells, hi = legend("div", np.array([[3.0, -1.0], [0.5, 2.0]]), 8)
    assert (lo, hi) == ("-3", "3") and cells == sorted(cells) and cells[-1] == len(DIV) - 1
    assert legend("div", np.array([[0.87]]), 10)[::2] == ("-.87", ".87")
    assert legend("div", np.zeros((2, 2)), 8) is None and legend("plain", np.eye(2), 8) is None
    assert legend("seq", np.eye(2), 4) is None  # no room: the header cell stays blank


async def test_each_coloured_grid_shows_its_legend(grid_text):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        heads = {n: grid_text(app, n).split("\n")[0] for n in ("S", "A", "M", "H")}
        assert heads["S"].startswith("-3") and heads["A"].startswith("0") and "1 " in heads["A"][:9]
        assert heads["A"][1] in BARS
        assert heads["M"][:8].strip() == "" and heads["H"][:8].strip() == ""  # no colour scale, no legend

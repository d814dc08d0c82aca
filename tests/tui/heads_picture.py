"""Reading the heads screen's pictures back off the screen (shared by the heads screen's tests):
each tile's characters and styles, decoded into which (query, key) cells are drawn, and A
computed here from the head's Q and K, independently of the core's streaming pass."""

from __future__ import annotations

import numpy as np

from attn_tui.core.heads.source import head_scenario
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.widgets.head_tiles import HeadTiles

BLANK = 0.05  # weights under this are left blank (head_tiles.STEPS[0], the shade glyphs' blank)


def own_A(src, layer: int, head: int) -> np.ndarray:
    """(T, T') A = softmax(scale·Q Kᵀ + causal mask) from the head's own Q and K (a causal source)."""
    s = head_scenario(src, layer, head)
    S = (s.Q.astype(np.float64) @ s.K.astype(np.float64).T) * s.scale
    S[np.triu(np.ones_like(S, dtype=bool), 1)] = -np.inf
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


async def open_heads_screen(pilot, settle) -> HeadTiles:
    await settle(pilot)
    await pilot.press("h")
    await settle(pilot)
    assert isinstance(pilot.app.screen, HeadsScreen)
    tiles = pilot.app.screen.query_one(HeadTiles)
    assert tiles.tiles
    return tiles


def cells(widget: HeadTiles) -> list[list[tuple]]:
    """(character, style) of every cell on screen, line by line."""
    out = []
    for y in range(widget.size.height):
        out.append([(ch, seg.style) for seg in widget.render_line(y) for ch in seg.text])
    return out


def picture_origin(widget: HeadTiles, index: int) -> tuple[int, int]:
    """(x, y) of the first picture cell of the ``index``-th tile drawn (below its key axis line)."""
    lay = widget.lay
    row, col = divmod(index, lay.per_row)
    return col * lay.tile_w + 2 + lay.lab_w, row * lay.tile_h + 2


def drawn(widget: HeadTiles, index: int, T: int, T_k: int) -> np.ndarray:
    """(T, T') True where the picture of tile ``index`` draws a cell in colour (half blocks: ▀ is the
    upper row in its colour on the lower's as background, ▄ the lower row alone, a blank neither)."""
    lay, grid = widget.lay, cells(widget)
    x0, y0 = picture_origin(widget, index)
    ground = widget.rich_style.bgcolor
    out = np.zeros((T, T_k), dtype=bool)
    for t in range(0, T, 2):
        line = grid[y0 + t // 2]
        for i in range(T_k):
            ch, style = line[x0 + i * lay.cw]
            upper = ch == "▀"
            lower = (ch == "▀" and style.bgcolor is not None and style.bgcolor != ground) or ch == "▄"
            assert ch in "▀▄ ", (t, i, ch)
            out[t, i] = upper
            if t + 1 < T:
                out[t + 1, i] = lower
    return out


def colours(widget: HeadTiles, index: int, T: int, T_k: int) -> dict:
    """{(t, i): the colour drawn for cell (t, i)} of tile ``index`` (half blocks)."""
    lay, grid = widget.lay, cells(widget)
    x0, y0 = picture_origin(widget, index)
    out = {}
    for t in range(0, T, 2):
        for i in range(T_k):
            ch, style = grid[y0 + t // 2][x0 + i * lay.cw]
            if ch == "▀":
                out[(t, i)] = style.color
                if t + 1 < T and style.bgcolor != widget.rich_style.bgcolor:
                    out[(t + 1, i)] = style.bgcolor
            elif ch == "▄" and t + 1 < T:
                out[(t + 1, i)] = style.color
    return out


def lightness(colour) -> float:
    r, g, b = colour.get_truecolor()
    return 0.2126 * r + 0.7152 * g + 0.0722 * b

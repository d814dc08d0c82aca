"""HeadTiles: one layer's heads side by side, each a bordered tile with its A and its readings
(views/heads_view.py makes the tiles, views/heads_layout.py their arrangement and axes), drawn with
the Line API.

The colours are the viridis buckets of the grids (MatrixGrid's component classes
``matrix-grid--seq-*``, so a theme restyles them; reversed in a light theme, so the heavy weights
are the dark ones there). In colour a character holds two query rows (``Layout.half``, views/
heads_layout.py): ▀ in the upper row's colour on the lower row's, so A is drawn cell for cell. With
NO_COLOR a cell is a shade glyph (" ", ░, ▒, ▓, █) by weight, one row a line: the glyphs alone draw
the pattern. Row and key labels (tN) from the view sit on the axes. A click on a tile posts HeadPicked.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from . import palette

if TYPE_CHECKING:
    from typing import Any, ClassVar

    from ..views.heads_layout import Layout

SHADES = (" ", "░", "▒", "▓", "█")  # by weight: < 0.05, < 0.25, < 0.5, < 0.75, else
STEPS = np.array([0.05, 0.25, 0.5, 0.75])


class HeadPicked(Message):
    """The learner clicked the tile of head ``head`` of layer ``layer`` (both from 0)."""

    def __init__(self, layer: int, head: int) -> None:
        super().__init__()
        self.layer, self.head = layer, head


def shade(values: np.ndarray) -> list[str]:
    """The glyph of each weight (NaN: '?')."""
    idx = np.searchsorted(STEPS, np.nan_to_num(values, nan=0.0), side="right")
    return ["?" if np.isnan(v) else SHADES[i] for v, i in zip(values.tolist(), idx.tolist())]


class TilesResized(Message):
    """The tiles' widget has a new size: the screen lays the tiles out again."""


class HeadTiles(ScrollView, can_focus=True):
    """Draws the tiles it is given (:meth:`show`); scrolls when they are taller than the widget."""

    HELP = (
        "Each tile: a head's A, rows the queries t, columns the keys i (labelled tN), one cell per (query, key) "
        "where it fits (▀: two query rows a character); else k×k tokens a cell, said in its title. "
        "Beside it its readings; a click picks the head."
    )

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "head-tiles--border",
        "head-tiles--current",
        "head-tiles--hot",
        "head-tiles--axis",
    }

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.tiles: list = []
        self.lay: Layout | None = None  # views/heads_layout.py
        self._cache: dict[int, Strip] = {}
        self._styles_read = None  # (colours, border, current, hot), read once per style update

    def show(self, tiles: list, lay: Layout) -> None:
        self.tiles, self.lay = tiles, lay
        rows = -(-len(tiles) // lay.per_row) if tiles else 0
        self.virtual_size = Size(lay.per_row * lay.tile_w, rows * lay.tile_h)
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._styles_read = None

    def _look(self):
        if self._styles_read is None:
            self._styles_read = self._read_look()
        return self._styles_read

    def _read_look(self):
        """(base, colours, border, current, hot, axis, blank): every Style on the widget's own background (a Line
        API strip is drawn as given: a segment without a background shows the terminal's)."""
        get = partial(self.get_component_rich_style, partial=True)
        base = self.rich_style
        grid = palette.shared_styles(self)  # the grids' viridis buckets, as the theme styles them
        colours = tuple(base + Style(color=grid[f"matrix-grid--{n}"].background.rich_color) for n in palette.SEQ)
        if not self.app.current_theme.dark:  # on a light ground the heavy weights go dark (viridis reversed)
            colours = colours[::-1]
        parts = (get("head-tiles--border"), get("head-tiles--current"), get("head-tiles--hot"), get("head-tiles--axis"))
        # blank cells in a style of their own: merged into a run with glyphs or text, an SVG spaces them wrong
        return (base, colours, *(base + p for p in parts), base + Style(dim=True))

    def render_line(self, y: int) -> Strip:
        sy = int(self.scroll_offset.y) + y
        width = self.size.width
        if self.lay is None or sy >= self.virtual_size.height:
            return Strip.blank(width, self._look()[0])  # a style: NO_COLOR's filter fails on None
        if sy not in self._cache:
            self._cache[sy] = self._line(sy)
        return self._cache[sy].crop(int(self.scroll_offset.x), int(self.scroll_offset.x) + width)

    def _line(self, sy: int) -> Strip:
        lay = self.lay
        assert lay is not None  # drawn only once shown (render_line)
        row, ty = divmod(sy, lay.tile_h)
        segs: list[Segment] = []
        for tile in self.tiles[row * lay.per_row : (row + 1) * lay.per_row]:
            segs += self._tile_line(tile, ty)
        return Strip(segs)

    def _tile_line(self, tile, ty: int) -> list[Segment]:
        lay = self.lay
        assert lay is not None  # drawn only once shown (render_line)
        plain, colours, border, current, hot, axis, blank = self._look()
        edge = current if tile.current else border
        inner = lay.tile_w - 2
        if ty == 0:
            title = f" {tile.title} "[: inner - 1]
            return [
                Segment("┌─", edge),
                Segment(title, edge + Style(bold=True)),
                Segment("─" * (inner - 1 - len(title)) + "┐", edge),
            ]
        if ty == lay.tile_h - 1:
            return [Segment("└" + "─" * inner + "┘", edge)]
        r = ty - 1
        segs = [Segment("│", edge), Segment(" ", plain)]  # a gap: a block glyph never touches the border
        drawn = 0 if tile.thumb is None else -(-tile.thumb.shape[0] // lay.rows_per_line)  # picture lines
        if r == 0:  # the key axis, its blank over the row labels apart (merged into the gap, an SVG drops it)
            segs += [Segment(" " * lay.lab_w, blank), Segment(tile.top[lay.lab_w :].ljust(lay.pic_w), axis)]
        elif r - 1 < drawn:
            side = tile.side[r - 1] if r - 1 < len(tile.side) else " " * lay.lab_w
            segs += [Segment(side, axis), *self._picture(tile.thumb, r - 1)]
        else:
            segs.append(Segment(" " * (lay.lab_w + lay.pic_w), blank))
        text = tile.lines[r] if r < len(tile.lines) else ""
        room = inner - lay.lab_w - lay.pic_w - 2
        segs.append(Segment(" ", blank))
        shown = text[:room]
        segs.append(Segment(shown, hot if r == tile.hot else plain))
        segs.append(Segment(" " * (room - len(shown)), blank))
        segs.append(Segment("│", edge))
        return segs

    def _picture(self, thumb: np.ndarray, line: int) -> list[Segment]:
        """Picture line ``line``: one query row in shade glyphs, or two in half blocks (lay.half)."""
        lay = self.lay
        assert lay is not None  # drawn only once shown (render_line)
        look = self._look()
        plain, colours, blank = look[0], look[1], look[-1]
        if not lay.half:
            vals = thumb[line]
            codes = palette.buckets(vals, "seq")
            look = [blank if g == " " else colours[c] if c >= 0 else plain for g, c in zip(shade(vals), codes.tolist())]
            segs = [Segment(g * lay.cw, st) for g, st in zip(shade(vals), look)]
        else:
            upper = thumb[2 * line]
            lower = thumb[2 * line + 1] if 2 * line + 1 < len(thumb) else np.full_like(upper, -1.0)
            segs = [Segment(g * lay.cw, st) for g, st in zip(*self._halves(upper, lower))]
        drawn = thumb.shape[1] * lay.cw
        return segs + [Segment(" " * (lay.pic_w - drawn), blank)] if drawn < lay.pic_w else segs

    def _halves(self, upper: np.ndarray, lower: np.ndarray) -> tuple[list[str], list[Style]]:
        """(glyph, style) a key for two query rows: ▀ in the upper row's colour on the lower's, ▄ when
        only the lower shows, a blank under STEPS[0] (the shade glyphs' blank too), '?' for NaN; a
        lower of -1: no row there (T odd)."""
        look = self._look()
        plain, colours, blank = look[0], look[1], look[-1]
        cu, cl = (np.where(np.nan_to_num(v) >= STEPS[0], palette.buckets(v, "seq"), -1) for v in (upper, lower))
        nan = np.isnan(upper) | np.isnan(lower)
        glyphs, styles = [], []
        for a, b, unknown in zip(cu.tolist(), cl.tolist(), nan.tolist()):
            if unknown:
                glyph, style = "?", plain
            elif a >= 0:
                glyph, style = "▀", colours[a] + Style(bgcolor=colours[b].color) if b >= 0 else colours[a]
            else:
                glyph, style = ("▄", colours[b]) if b >= 0 else (" ", blank)
            glyphs.append(glyph)
            styles.append(style)
        return glyphs, styles

    def on_resize(self) -> None:
        self.post_message(TilesResized())

    def on_click(self, event: events.Click) -> None:
        if self.lay is None:
            return
        x, y = event.x + int(self.scroll_offset.x), event.y + int(self.scroll_offset.y)
        i = (y // self.lay.tile_h) * self.lay.per_row + x // self.lay.tile_w
        if x // self.lay.tile_w < self.lay.per_row and 0 <= i < len(self.tiles):
            self.post_message(HeadPicked(self.tiles[i].layer, self.tiles[i].head))

"""The grids' colours (issue 12, first frame): the style sheet is applied to the 30 component
classes of palette.COMPONENTS once per app and theme, not by Textual to each grid's classes at
every style update; a theme switch still restyles every grid; the key bar is not redrawn by a
knob. Counted, not timed."""

from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet

from attn_tui.tui.widgets import palette as P
from attn_tui.tui.widgets.key_bar import KeyBar
from attn_tui.tui.widgets.matrix_grid import MatrixGrid


@pytest.fixture
def applied(monkeypatch):
    """The component classes (``matrix-grid--...``) the style sheet is applied to, in order."""
    names: list[str] = []
    original = Stylesheet.apply

    def spy(self, node, **kw):
        names.extend(c for c in node.classes if c.startswith("matrix-grid--"))
        return original(self, node, **kw)

    monkeypatch.setattr(Stylesheet, "apply", spy)
    return names


def _label_ground(grid: MatrixGrid):
    return next(iter(grid.render_line(0))).style.bgcolor  # the legend / label cell: $background


async def test_grid_styles_are_applied_once_per_theme_not_per_grid(make_app, settle, applied):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grids = [g for g in app.screen.query(MatrixGrid) if g.size.width]  # shown (Y is not, without cross)
        assert len(grids) > 1
        assert sorted(applied) == sorted(P.COMPONENTS)  # once for every grid, start-up's style updates included
        looks = {id(g._styles()) for g in grids}
        assert len(looks) == 1  # one Look shared, not read per grid
        dark = [_label_ground(g) for g in grids]
        applied.clear()
        app.theme = "textual-light"
        await settle(pilot)
        assert sorted(applied) == sorted(P.COMPONENTS)  # once again for the new theme
        light = [_label_ground(g) for g in grids]
        assert all(a != b for a, b in zip(dark, light))  # and every grid took it


@pytest.mark.slow
async def test_a_theme_switch_repaints_every_grid(make_app, settle, monkeypatch):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grids = [g for g in app.screen.query(MatrixGrid) if g.size.width]
        repainted: set[int] = set()
        original = MatrixGrid.refresh
        monkeypatch.setattr(
            MatrixGrid, "refresh", lambda self, *a, **k: repainted.add(id(self)) or original(self, *a, **k)
        )
        app.theme = "textual-light"
        await settle(pilot)
        assert repainted >= {id(g) for g in grids}  # no grid keeps the dark theme's lines on screen


async def test_the_key_bar_is_not_repainted_by_a_knob(make_app, settle, monkeypatch):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("plus")  # the first key also dismisses the "new here?" hint
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        shown = bar.plain
        calls: list = []
        original = KeyBar.refresh
        monkeypatch.setattr(KeyBar, "refresh", lambda self, *a, **k: calls.append(a) or original(self, *a, **k))
        for key in ("plus", "minus", "plus"):
            await pilot.press(key)
        await settle(pilot)
        assert bar.plain == shown and calls == []  # the same keys: not redrawn

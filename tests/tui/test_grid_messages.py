"""MatrixGrid's messages are nested in the widget and carry their grid as ``control`` (Textual's
convention), so a parent can listen to one grid with ``@on(MatrixGrid.CellCursorMoved, "#grid-A")``."""

from __future__ import annotations

import numpy as np
from textual import on
from textual.app import App, ComposeResult

from attn_tui.tui.screens.keyed_grid import KeyedGrid
from attn_tui.tui.widgets.matrix_grid import MatrixGrid


class TwoGrids(App):
    """Two grids with the key table's keys; only A's cursor moves and edit requests are kept, by selector."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple] = []

    def compose(self) -> ComposeResult:
        yield KeyedGrid("A", id="grid-A")
        yield KeyedGrid("S", id="grid-S")

    def on_mount(self) -> None:
        for grid in self.query(MatrixGrid):
            grid.show(np.arange(6.0).reshape(2, 3), ("t1", "t2"), ("t1", "t2", "t3"))

    @on(MatrixGrid.CellCursorMoved, "#grid-A")
    def a_moved(self, message: MatrixGrid.CellCursorMoved) -> None:
        self.heard.append(("moved", message.control.matrix, message.row, message.col))

    @on(MatrixGrid.EditRequested, "#grid-A")
    def a_edit(self, message: MatrixGrid.EditRequested) -> None:
        self.heard.append(("edit", message.control.matrix, message.row, message.col))


async def test_a_selector_picks_one_grids_messages():
    app = TwoGrids()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        assert app.heard == [("moved", "A", 0, 0)]  # A took the focus on start
        app.heard.clear()
        app.query_one("#grid-S").focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.heard == []  # S's moves and edits: not A's handler's
        app.query_one("#grid-A").focus()
        await pilot.press("right", "enter")
        await pilot.pause()
        assert app.heard == [("moved", "A", 0, 0), ("moved", "A", 0, 1), ("edit", "A", 0, 1)]


def test_the_messages_name_their_grid():
    grid = MatrixGrid("W_Q")
    for kind in (MatrixGrid.CellCursorMoved, MatrixGrid.EditRequested):
        message = kind(grid, 2, 1)
        assert (message.control, message.row, message.col) == (grid, 2, 1)
    assert MatrixGrid.CellCursorMoved.handler_name == "on_matrix_grid_cell_cursor_moved"
    assert MatrixGrid.EditRequested.handler_name == "on_matrix_grid_edit_requested"


def test_the_package_builds_keyed_grids_only():
    """A bare MatrixGrid answers no key (its keys are bound by screens/keyed_grid.py): every grid the
    explorer builds is a KeyedGrid, so the arrows, home/end, pages and enter work on every screen."""
    import ast
    from pathlib import Path

    import attn_tui

    root = Path(attn_tui.__file__).parent
    bare = [
        f"{path.relative_to(root.parent)}:{node.lineno}"
        for path in sorted(root.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "MatrixGrid"
    ]
    assert bare == [], "use KeyedGrid: " + ", ".join(bare)
    assert {b.key for b in KeyedGrid.BINDINGS} >= {"up", "down", "home", "end", "pageup", "enter"}

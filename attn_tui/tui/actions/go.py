"""Go to a cell by number: query row t and key i of A (at T = 16384 the far rows are a number away,
not thousands of presses of j)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.numparse import parse_int
from ..screens.editor import FormScreen
from ..widgets.matrix_grid import MatrixGrid

if TYPE_CHECKING:
    from attn_tui.tui.app_protocol import ExplorerApp


def _number(text: str, what: str, n: int) -> int | str:
    """``text`` as a position from 1 to ``n``, or the refusal naming ``what`` and the range."""
    try:
        return parse_int(text, what, 1, n)
    except ValueError as exc:
        return str(exc)


def go_to(app: ExplorerApp) -> None:
    st, s = app.state, app.state.scenario
    col = st.cursor[2] if st.cursor and st.cursor[0] in ("S", "M", "A") else 0
    fields = [("t", "row t", st.row + 1), ("i", "key i", col + 1)]
    target: dict[str, int] = {}

    def apply(values: dict) -> str | None:
        t, i = _number(values["t"], "row t", s.T), _number(values["i"], "key i", s.T_k)
        if isinstance(t, str):
            return t
        if isinstance(i, str):
            return i
        target.update(row=t - 1, col=i - 1)
        return None

    def done(ok: bool | None) -> None:
        if ok:
            _go(app, **target)

    app.push_screen(FormScreen(f"Go to the cell A[t, i]: t from 1 to {s.T}, i from 1 to {s.T_k}", fields, apply), done)


def _go(app: ExplorerApp, row: int, col: int) -> None:
    """Put A's cell cursor on (row, col) (A's grid says so to the app, which selects row t); on a
    screen without A's grid, select row t."""
    grid = next((g for g in app.screen.query(MatrixGrid) if g.matrix == "A" and g.display), None)
    if grid is None:
        app.set_state(app.state.with_(row=row))
        return
    grid.focus()
    grid.move_cursor(row, col)  # A's cursor row is the selected query row (app.on_matrix_grid_cell_cursor_moved)

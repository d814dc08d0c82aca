"""Editing actions: a cell (inline editor), token/feature/key labels, tokens and dimensions."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from ...core import edit
from ...core.limits import DENSE_MAX, EDIT_MAX
from ...core.matrices import INPUTS, MATRICES, axis_labels, computed_hint
from ...core.numparse import parse_int
from ..screens.editor import CellEditor, FormScreen
from ..screens.nothing_here import NothingHere
from ..widgets.matrix_grid import MatrixGrid
from . import attempt, commit, refuse

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.app_protocol import ExplorerApp


def cell(app: ExplorerApp, name: str, row: int, col: int) -> None:
    """`enter` on cell (row, col) of ``name``: the inline editor, or what to edit instead."""
    s = app.state.scenario
    try:
        m = edit.matrix_of(s, name)
    except edit.EditError:
        app.push_screen(NothingHere(f"{computed_hint(s, name)}.\n{_where_enter_edits(s)}"))
        return
    rows, cols = axis_labels(s, name)
    title = f"{name}[{rows[row]}, {cols[col]}]  row {row + 1}, column {col + 1}"
    anchor = next((g.cell_region(row, col) for g in app.screen.query(MatrixGrid) if g.matrix == name), None)
    hint = f"enter commit · esc cancel · |x| ≤ {edit.BOUND:g}".replace("e+0", "e")
    app.push_screen(
        CellEditor(
            title,
            repr(float(m[row, col])),
            partial(_set_cell, app, name, row, col),
            anchor,
            hint=hint,
        )
    )


PANES: dict[str | None, str] = {  # focus id (None: the focused widget has none) -> what the pane is
    "chart": "The charts draw row t's scores and weights",
    "inspector": "The inspector shows how the cell under the cursor was computed",
}


def nothing_here(app: ExplorerApp) -> None:
    """`enter` on a pane that is no grid (the charts, the inspector): what enter edits, and where."""
    focused = getattr(app.focused, "id", None)
    what = PANES.get(focused, "Nothing on this pane is typed in")
    app.push_screen(NothingHere(f"{what}; nothing here is typed in.\n{_where_enter_edits(app.state.scenario)}"))


def _where_enter_edits(s: Scenario) -> str:
    """Which matrices enter edits in ``s``, and how to get to one."""
    names = []
    for name in INPUTS:
        try:
            edit.matrix_of(s, name)
        except edit.EditError:
            continue
        names.append(name)
    listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    return f"Enter edits a cell of {listed}: tab to that pane (or click a cell), then press enter."


def _set_cell(app: ExplorerApp, name: str, row: int, col: int, text: str) -> str | None:
    """Up to DENSE_MAX tokens the edit is made here. Above, bad text is refused here (the editor
    stays open) and the edit runs in a thread worker: its projections and overflow check take
    about a second at T = 16384, d = 256 (a float16 one may scan S in row blocks)."""
    s = app.state.scenario
    if max(s.T, s.T_k) <= DENSE_MAX:
        return attempt(app, edit.set_cell, name, row, col, text)
    try:
        x = edit.parse_value(text, edit.cell_name(name, row, col))
    except edit.EditError as exc:
        return str(exc).splitlines()[0]
    _edit_in_worker(app, name, row, col, x)
    return None


def _edit_in_worker(app: ExplorerApp, name: str, row: int, col: int, x: float) -> None:
    s, where = app.state.scenario, edit.cell_name(name, row, col)
    app.notes.note(f"computing {where} = {x:g} over {s.T} tokens …", "change", timeout=60)
    app.run_worker(partial(_edit_work, app, s, name, row, col, x), thread=True, group="edit")


def _edit_work(app: ExplorerApp, s: Scenario, name: str, row: int, col: int, x: float) -> None:
    try:
        new = edit.set_cell(s, name, row, col, x)
        if new is not s:  # A's row statistics for the selected row's block too, into the trace the explorer reads
            app.state.with_(scenario=new).trace.stats(app.state.row, app.state.row + 1)
        out: tuple[Scenario | None, str | None] = (new, None)
    except (edit.EditError, ValueError) as exc:
        out = (None, str(exc).splitlines()[0])
    if not get_current_worker().is_cancelled:  # the app is closing
        app.call_from_thread(_edit_done, app, s, out, (name, row, col, x))


def _edit_done(app: ExplorerApp, s: Scenario, out, cell) -> None:
    """On the event loop: commit, or refuse; a change that landed meanwhile gets the edit too."""
    new, reason = out
    if app.state.scenario is not s:  # another change came first: the edit applies to it
        _edit_in_worker(app, *cell)
        return
    app.notes.drop("change")
    refuse(app, reason or commit(app, new))


def _cursor(app: ExplorerApp) -> tuple:
    return app.state.cursor or ("", 0, 0)


def rename_token(app: ExplorerApp) -> None:
    s, t = app.state.scenario, app.state.row
    app.push_screen(
        CellEditor(
            f"Rename token {t + 1} ({s.tokens[t]})",
            s.tokens[t],
            lambda text: attempt(app, edit.rename, "tokens", t, text),
        )
    )


def rename_feature(app: ExplorerApp) -> None:
    """The feature under the cell cursor (a column of X/Y, a row of W), else feature 1."""
    s = app.state.scenario
    if not s.projected:
        refuse(app, "this scenario gives Q and K directly; it has no features")
        return
    name, r, c = _cursor(app)
    m = MATRICES.get(name)
    j = c if m and m.cols == "features" else r if m and m.rows == "features" else 0
    app.push_screen(
        CellEditor(
            f"Rename feature {j + 1} ({s.features[j]})",
            s.features[j],
            lambda text: attempt(app, edit.rename, "features", j, text),
        )
    )


def _key_under_cursor(app: ExplorerApp, default: int) -> int:
    """The key token of the row under the cursor in Y, K or V; else ``default``."""
    name, r, _c = _cursor(app)
    m = MATRICES.get(name)
    return r if m and m.rows == "keys" else default


def rename_key(app: ExplorerApp) -> None:
    s = app.state.scenario
    i = _key_under_cursor(app, 0)
    app.push_screen(
        CellEditor(
            f"Rename key token {i + 1} ({s.keys[i]})",
            s.keys[i],
            lambda text: attempt(app, edit.rename, "key_tokens", i, text),
        )
    )


def add_token(app: ExplorerApp) -> None:
    at = app.state.row + 1
    reason = attempt(
        app, edit.add_token, at, note=f"token {at + 1} added after the selected row (tN labels follow positions)"
    )
    if reason is None:
        app.set_state(app.state.select_row(1))  # onto the new token
    refuse(app, reason)


def remove_token(app: ExplorerApp) -> None:
    t = app.state.row
    label = app.state.scenario.tokens[t]
    refuse(app, attempt(app, edit.remove_token, t, note=f"token {t + 1} ({label}) removed; ctrl+z brings it back"))


def add_key(app: ExplorerApp) -> None:
    refuse(app, attempt(app, edit.add_key_token, note="key token added to Y"))


def remove_key(app: ExplorerApp) -> None:
    refuse(app, attempt(app, edit.remove_key_token, _key_under_cursor(app, app.state.scenario.T_k - 1)))


def dims(app: ExplorerApp) -> None:
    s = app.state.scenario
    fields = ([("d_model", "d_model", s.d_model)] if s.projected else []) + [
        ("d_k", "d_k", s.d_k),
        ("d_v", "d_v", s.d_v),
    ]
    app.push_screen(FormScreen("Dimensions (new cells start at 0)", fields, lambda v: _apply_dims(app, v)))


def _apply_dims(app: ExplorerApp, values: dict) -> str | None:
    s = app.state.scenario
    try:
        for dim, text in values.items():
            n = parse_int(text, dim, 1, EDIT_MAX, edit.EditError)  # ASCII digits only (numparse)
            if n != getattr(s, dim):
                s = edit.set_dim(s, dim, n)
    except edit.EditError as exc:
        return str(exc)
    return commit(app, s) if s is not app.state.scenario else None

"""The app side of editing: cell edits, labels, tokens, dimensions, modes, undo/redo,
random scenarios (and, through FileActions in file_actions.py, open/save/export), as
a mixin of AttentionApp, so app.py stays small.

Each action opens a dialog from attn_tui/tui/screens/{editor,modes,files}.py whose
``apply`` callback runs a pure function of attn_tui.core (edit, modes, scenario_io,
export, random_scenario) and commits the new scenario through ``set_state``; a
refusal comes back as the one-line message the dialog shows. History records every
scenario change in ``set_state``, so undo/redo covers the explorer's knobs too.
"""

from __future__ import annotations

from ..core import edit as E
from ..core import modes as Mo
from ..core.random_scenario import DEFAULTS, check_params, random_scenario
from .edit_notes import Notes, computed_hint, cross_keeping_padding
from .file_actions import FileActions
from .history import History, clamp_cursor
from .messages import EditRequested
from .screens.editor import CellEditor, FormScreen
from .screens.modes import DTYPE_OPTIONS, FILL_OPTIONS, ChoiceScreen, PaddingScreen, mask_options


def axis_labels(s, name):
    """(row labels, column labels) of input matrix ``name`` for the editor's title."""
    dk = tuple(f"k{j + 1}" for j in range(s.d_k))
    return {
        "X": (s.tokens, s.features), "Y": (s.keys, s.features),
        "W_Q": (s.features, dk), "W_K": (s.features, dk), "W_V": (s.features, s.value_features),
        "Q": (s.tokens, dk), "K": (s.keys, dk), "V": (s.keys, s.value_features),
    }[name]


class EditActions(Notes, FileActions):
    """Mixin for AttentionApp: needs ``self.state`` and ``self.set_state``."""

    @property
    def history(self) -> History:
        h = self.__dict__.get("_history")
        if h is None:
            h = self.__dict__["_history"] = History()
        return h

    # -- committing -------------------------------------------------------------
    def commit(self, scenario, note: str | None = None) -> None:
        """Make ``scenario`` current, keeping the row and cell cursor in range."""
        st = self.state
        row = min(st.row, scenario.T - 1)
        self.set_state(st.with_(scenario=scenario, row=row, cursor=clamp_cursor(scenario, st.cursor)))
        if note:
            self.note(note, "change", timeout=5)

    def _try(self, fn, *args, note: str | None = None) -> str | None:
        """Run a pure edit on the current scenario; None when committed, else the reason."""
        try:
            out = fn(self.state.scenario, *args)
        except (E.EditError, ValueError) as exc:
            return str(exc).splitlines()[0]
        new, extra = out if isinstance(out, tuple) else (out, None)
        self.commit(new, note or extra)
        return None

    def _refuse(self, reason: str | None) -> None:
        if reason:
            self.note(reason, "refusal", severity="warning", timeout=5)

    # -- cells and labels -------------------------------------------------------
    def on_edit_requested(self, message: EditRequested) -> None:
        message.stop()
        self.open_cell_editor(message.name, message.row, message.col)

    def open_cell_editor(self, name: str, row: int, col: int) -> None:
        s = self.state.scenario
        try:
            m = E.matrix_of(s, name)
        except E.EditError:
            m = None
        if m is None:
            self.note(computed_hint(s, name), "refusal", severity="warning", timeout=5)
            return
        rows, cols = axis_labels(s, name)
        title = f"{name}[{rows[row]}, {cols[col]}]  row {row + 1}, column {col + 1}"
        anchor = self._cell_region(name, row, col)
        self.push_screen(CellEditor(title, repr(float(m[row, col])),
                                    lambda text: self._try(E.set_cell, name, row, col, text), anchor,
                                    hint=f"enter commit · esc cancel · |x| ≤ {E.BOUND:g}".replace("e+0", "e")))

    def _cell_region(self, name, row, col):
        from .widgets.matrix_grid import MatrixGrid

        for grid in self.screen.query(MatrixGrid):
            if grid.matrix == name and hasattr(grid, "cell_region"):
                return grid.cell_region(row, col)
        return None

    def action_rename_token(self) -> None:
        s, t = self.state.scenario, self.state.row
        self.push_screen(CellEditor(f"Rename token {t + 1} ({s.tokens[t]})", s.tokens[t],
                                    lambda text: self._try(E.rename, "tokens", t, text)))

    def action_rename_feature(self) -> None:
        """Rename the feature under the cell cursor (a column of X/Y, a row of W), else feature 1."""
        s = self.state.scenario
        if not s.projected:
            self._refuse("this scenario gives Q and K directly; it has no features")
            return
        name, r, c = self.state.cursor or ("", 0, 0)
        j = c if name in ("X", "Y") else r if name in ("W_Q", "W_K", "W_V") else 0
        self.push_screen(CellEditor(f"Rename feature {j + 1} ({s.features[j]})", s.features[j],
                                    lambda text: self._try(E.rename, "features", j, text)))

    def action_rename_key(self) -> None:
        s = self.state.scenario
        name, r, _ = self.state.cursor or ("", 0, 0)
        i = r if name in ("Y", "K", "V") else 0
        self.push_screen(CellEditor(f"Rename key token {i + 1} ({s.keys[i]})", s.keys[i],
                                    lambda text: self._try(E.rename, "key_tokens", i, text)))

    # -- tokens and dimensions --------------------------------------------------
    def action_add_token(self) -> None:
        at = self.state.row + 1
        reason = self._try(E.add_token, at, note=f"token {at + 1} added after the selected row "
                                                  "(tN labels follow positions)")
        if reason is None:
            self.set_state(self.state.select_row(1))  # onto the new token
        self._refuse(reason)

    def action_remove_token(self) -> None:
        t = self.state.row
        label = self.state.scenario.tokens[t]
        self._refuse(self._try(E.remove_token, t, note=f"token {t + 1} ({label}) removed; ctrl+z brings it back"))

    def action_add_key(self) -> None:
        self._refuse(self._try(E.add_key_token, note="key token added to Y"))

    def action_remove_key(self) -> None:
        name, r, _ = self.state.cursor or ("", 0, 0)
        i = r if name in ("Y", "K", "V") else self.state.scenario.T_k - 1
        self._refuse(self._try(E.remove_key_token, i))

    def action_dims(self) -> None:
        s = self.state.scenario
        fields = ([("d_model", "d_model", s.d_model)] if s.projected else []) + [
            ("d_k", "d_k", s.d_k), ("d_v", "d_v", s.d_v)]
        self.push_screen(FormScreen("Dimensions (new cells start at 0)", fields, self._apply_dims))

    def _apply_dims(self, values: dict) -> str | None:
        s = self.state.scenario
        try:
            for dim, text in values.items():
                n = int(text) if text.strip().lstrip("-").isdigit() else text
                if n != getattr(s, dim):
                    s = E.set_dim(s, dim, n)
        except E.EditError as exc:
            return str(exc)
        if s is not self.state.scenario:
            self.commit(s)
        return None

    # -- modes -------------------------------------------------------------------
    def action_pick_mask(self) -> None:
        s = self.state.scenario
        self.push_screen(ChoiceScreen("Mask", mask_options(s), s.mask), self._picked_mask)

    def _picked_mask(self, kind) -> None:
        if kind == "window":
            w = self.state.scenario.window or 2
            self.push_screen(FormScreen("Sliding window: token t reads the last w tokens",
                                        [("w", "width w", w)],
                                        lambda v: self._try(Mo.set_mask, "window", _int(v["w"]))))
        elif kind:
            self._refuse(self._try(Mo.set_mask, kind))

    def action_pick_fill(self) -> None:
        self.push_screen(ChoiceScreen("Fill of masked cells", FILL_OPTIONS, self.state.scenario.fill),
                         lambda f: f and self._refuse(self._try(Mo.set_fill, f)))

    def action_pick_dtype(self) -> None:
        self.push_screen(ChoiceScreen("dtype every step is computed in", DTYPE_OPTIONS, self.state.scenario.dtype),
                         lambda d: d and self._refuse(self._try(Mo.set_dtype, d)))

    def action_pick_padding(self) -> None:
        s = self.state.scenario
        self.push_screen(PaddingScreen(s.keys, s.padding),
                         lambda pos: pos is not None and self._refuse(self._try(Mo.set_padding, pos)))

    def action_toggle_cross(self) -> None:
        self._refuse(self._try(cross_keeping_padding, not self.state.scenario.cross))

    def action_random(self) -> None:
        s = self.state.scenario
        last = self.__dict__.get("_random")  # after a random scenario, enter gives the next seed
        now = dict(last, seed=last["seed"] + 1) if last else {
            "T": s.T, "d_model": s.d_model or DEFAULTS["d_model"], "d_k": s.d_k, "d_v": s.d_v, "seed": 0}
        fields = [(k, k, now[k]) for k in ("T", "d_model", "d_k", "d_v", "seed")]
        self.push_screen(FormScreen("Random scenario (Gaussian, seeded; T up to 512)", fields, self._apply_random))

    def _apply_random(self, values: dict) -> str | None:
        try:
            p = check_params(**values)
        except E.EditError as exc:
            return str(exc)
        self.commit(random_scenario(**p), note=f"random scenario, seed {p['seed']}")
        self.__dict__["_random"] = p
        return None

    # -- undo / redo ---------------------------------------------------------------
    def action_undo(self) -> None:
        st = self.history.undo(self.state)
        if st is None:
            self.note("nothing to undo", "refusal", severity="warning", timeout=3)
        else:
            self.set_state(st)
            self.note(f"undone ({len(self.history.past)} more; ctrl+y redoes)", "change", timeout=2)

    def action_redo(self) -> None:
        st = self.history.redo(self.state)
        if st is None:
            self.note("nothing to redo", "refusal", severity="warning", timeout=3)
        else:
            self.set_state(st)
            self.note(f"redone ({len(self.history.future)} more)", "change", timeout=2)


def _int(text: str):
    try:
        return int(text.strip())
    except ValueError:
        return text.strip()

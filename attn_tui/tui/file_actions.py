"""The app side of files: open a scenario (path or built-in), save it as TOML (atomic,
asks before overwriting, checks the file reloads bit for bit), export the matrices
(CSV / .npy) or an SVG screenshot. A mixin under EditActions; ``commit`` comes from it.

Each ``_apply_*`` returns None when done, SaveScreen.EXISTS to ask before
overwriting, or the one-line reason shown in the dialog.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.builtins import BUILTINS
from ..core.edit import EDITABLE
from ..core.export import export as export_matrices
from ..core.scenario_io import ScenarioError, dumps, load, resolve, save
from .screens.files import ExportScreen, OpenScreen, SaveScreen


class FileActions:
    """Open/save/export actions; needs ``self.state`` and ``self.commit``."""

    save_path: str = ""
    export_path: str = "attn-export"

    def action_open(self) -> None:
        self.push_screen(OpenScreen(self._apply_open, self.save_path))

    def _apply_open(self, name: str) -> str | None:
        """Load a file or built-in; a bad file keeps the current scenario and says why."""
        if not name:
            return "type a path to a .toml scenario, or pick a built-in below"
        try:
            s = resolve(name if name in BUILTINS else str(Path(name).expanduser()))
        except (ScenarioError, ValueError) as exc:
            msg = str(exc).splitlines()[0]
            self.notify(msg, title="Not opened; the current scenario stays", severity="error", timeout=8)
            return msg
        self.commit(s, note=f"opened {name}: {s.title}")
        if Path(name).suffix == ".toml":
            self.save_path = name
        return None

    def action_save(self) -> None:
        self.push_screen(SaveScreen(self._apply_save, self.save_path or "scenario.toml"))

    def _apply_save(self, path: str, overwrite: bool) -> str | None:
        if not path:
            return "type a file name, e.g. my-scenario.toml"
        p = Path(path).expanduser()
        if p.is_dir():
            return f"{p}: is a folder; type a file name inside it"
        if p.exists() and not overwrite:
            return SaveScreen.EXISTS
        try:
            save(self.state.scenario, p, overwrite=True)
            back = load(p)
        except (OSError, ScenarioError) as exc:
            return f"{p}: not saved ({getattr(exc, 'strerror', None) or exc})"
        self.save_path = path
        same = _same_matrices(back, self.state.scenario)
        self.notify(f"saved {p}" + ("" if same else " (WARNING: reloads differently)"),
                    severity="information" if same else "error")
        return None

    def action_export(self) -> None:
        self.push_screen(ExportScreen(self._apply_export, self.export_path))

    def _apply_export(self, path: str, fmt: str, overwrite: bool) -> str | None:
        if not path:
            return "type a folder (CSV/.npy) or a file name ending in .svg"
        p = Path(path).expanduser()
        if fmt == "svg":
            p = p if p.suffix == ".svg" else p.with_suffix(".svg")
            if p.exists() and not overwrite:
                return SaveScreen.EXISTS
            if not p.parent.is_dir():
                return f"{p.parent}: no such folder"
            self.call_after_refresh(self._save_svg, p)  # once the dialog is gone
            return None
        try:
            paths = export_matrices(self.state.scenario, self.state.trace, p, fmt, overwrite=overwrite)
        except FileExistsError:
            return SaveScreen.EXISTS
        except (OSError, ValueError) as exc:
            return f"{p}: not exported ({getattr(exc, 'strerror', None) or exc})"
        self.export_path = path
        self.notify(f"exported {len(paths)} {fmt} files to {p}")
        return None

    def _save_svg(self, p: Path) -> None:
        self.save_screenshot(filename=p.name, path=str(p.parent))
        self.notify(f"screenshot saved to {p}")


def _same_matrices(a, b) -> bool:
    return dumps(a) == dumps(b) and all(
        (getattr(a, n) is None and getattr(b, n) is None)
        or np.array_equal(getattr(a, n), getattr(b, n)) for n in EDITABLE)

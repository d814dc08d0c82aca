"""File actions: open a scenario (path or built-in), save it as TOML (atomic, asks before
overwriting, checks the file reloads bit for bit), export the matrices (CSV / .npy) or an
SVG screenshot. Each ``_apply_*`` returns None when done, SaveScreen.EXISTS to ask before
overwriting, or the one-line reason shown in the dialog.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...core import scenario_io as io
from ...core.atomic import file_stamp
from ...core.builtins import BUILTINS
from ...core.export import export as export_matrices
from ...core.heads.demo import HEAD_BUILTINS
from ...core.limits import printable, unexpected
from ...core.matrices import INPUTS
from ..heads_nav import is_multi, open_ref
from ..screens.files import ExportScreen, OpenScreen, SaveScreen
from ..served_root import rooted, served_root
from . import commit, refuse

if TYPE_CHECKING:
    from attn_tui.tui.app_protocol import ExplorerApp
    from attn_tui.tui.state import State


def open(app: ExplorerApp) -> None:  # noqa: A001  (the action's name, as the key table writes it)
    # Offer the file last opened or saved, if it is one (a built-in's save name is no file to open).
    last = app.paths.save
    app.push_screen(OpenScreen(lambda name: apply_open(app, name), last if last and _is_file(last) else ""))


def _is_file(name: str) -> bool:
    try:
        return _expand(name).is_file()
    except (OSError, ValueError):
        return False


def apply_open(app: ExplorerApp, name: str) -> str | None:
    """Load a file or built-in; a bad file keeps the current scenario and says why."""
    if not name:
        return "type a path to a scenario file (.toml, .npz, .safetensors), or pick a built-in below"
    try:
        path = name if name in BUILTINS or name in HEAD_BUILTINS else str(_expand(name))
        stamp = None if name in BUILTINS or name in HEAD_BUILTINS else file_stamp(path)  # before reading
        s, head = open_ref(path) if is_multi(path) else (io.resolve(path, large=True), None)  # T up to 16384
    except Exception as exc:  # noqa: BLE001  (a refusal, or anything unforeseen: the session is kept)
        msg = _refusal(name, exc)
        app.notes.note(msg, "refusal", title="Not opened; the current scenario stays", severity="error", timeout=8)
        return msg
    why = commit(app, s, note=f"opened {name}: {s.title}", head=head, fresh=True)
    if why:  # the same admission as the file door: only if the two disagree
        return why
    app.paths.remember(path, stamp)
    if s.focus_row:
        app.set_state(app.state.with_(row=s.focus_row - 1))  # the row the file opens on
    # Save offers what is on screen: the .toml opened, a built-in's name in the current folder, or
    # the default (it offered the last .toml opened, and `y` overwrote it with another scenario).
    app.paths.save = name if Path(name).suffix == ".toml" else f"{name}.toml" if name in BUILTINS else ""
    return None


def _refusal(name: str, exc: Exception) -> str:
    """The one line the open dialog shows: the core's refusal (it names the file), or, for an
    exception no check foresaw (the backstop), its type and words, naming the file."""
    if isinstance(exc, (io.ScenarioError, ValueError, RuntimeError)) and str(exc):
        return str(exc).splitlines()[0]
    return f"{printable(name)}: cannot be opened ({unexpected(exc)})"


def save(app: ExplorerApp) -> None:
    try:  # refused before a name is typed: a file this large never goes to TOML
        io.check_savable(_to_save(app.state))
    except ValueError as exc:
        refuse(app, f"not saved: {exc}")
        return
    app.push_screen(
        SaveScreen(lambda path, overwrite: apply_save(app, path, overwrite), app.paths.save or "scenario.toml")
    )


def apply_save(app: ExplorerApp, path: str, overwrite: bool) -> str | None:
    if not path:
        return "type a file name, e.g. my-scenario.toml"
    try:
        p = _expand(path)
        if p.is_dir():
            return f"{p}: is a folder; type a file name inside it"
        if p.exists() and not overwrite:  # another explorer's save since ours is said, not overwritten
            return SaveScreen.CHANGED if app.paths.changed(p) else SaveScreen.EXISTS
        io.save(_to_save(app.state), p, overwrite=True, within=served_root())  # served: lands below it
        app.paths.remember(p, file_stamp(p))
        back = io.load(p)
    except (OSError, ValueError, io.ScenarioError) as exc:
        return f"{path}: not saved ({getattr(exc, 'strerror', None) or exc})"
    app.paths.save = path
    same = _same_matrices(back, _to_save(app.state))
    app.notes.say(
        f"saved {p}" + ("" if same else " (WARNING: reloads differently)"), severity="information" if same else "error"
    )
    return None


def export(app: ExplorerApp) -> None:
    app.push_screen(
        ExportScreen(lambda path, fmt, overwrite: apply_export(app, path, fmt, overwrite), app.paths.export)
    )


def apply_export(app: ExplorerApp, path: str, fmt: str, overwrite: bool) -> str | None:
    if not path:
        return "type a folder (CSV/.npy) or a file name ending in .svg"
    try:
        p = _expand(path)
        if fmt == "svg":
            return _export_svg(app, p, overwrite)
    except (OSError, ValueError) as exc:
        return f"{path}: not exported ({getattr(exc, 'strerror', None) or exc})"
    try:
        paths = export_matrices(app.state.scenario, app.state.trace, p, fmt, overwrite=overwrite)
    except FileExistsError:
        return SaveScreen.EXISTS
    except (OSError, ValueError) as exc:
        return f"{p}: not exported ({getattr(exc, 'strerror', None) or exc})"
    app.paths.export = path
    app.notes.say(f"exported {len(paths)} {fmt} files to {p}")
    return None


def _export_svg(app: ExplorerApp, p: Path, overwrite: bool) -> str | None:
    if p.is_dir():  # '.' (the served root) became ROOT.svg beside it, outside the served folder
        return f"{p}: is a folder; type a file name ending in .svg"
    if p.suffix != ".svg":
        p = _expand(str(p.with_suffix(".svg")))  # the name written is checked, not only the name typed
    if p.exists() and not overwrite:
        return SaveScreen.EXISTS
    if not p.parent.is_dir():
        return f"{p.parent}: no such folder"
    app.call_after_refresh(_save_svg, app, p)  # once the dialog is gone
    return None


def _save_svg(app: ExplorerApp, p: Path) -> None:
    app.save_screenshot(filename=p.name, path=str(p.parent))
    app.notes.say(f"screenshot saved to {p}")


def _expand(path: str) -> Path:
    """``path`` with ~ expanded, kept under the served folder when served (served_root); RuntimeError
    (an unknown ~user) becomes a one-line ValueError."""
    try:
        return rooted(path)
    except RuntimeError:
        raise ValueError(f"{path}: no such user's home folder (~user)") from None


def _to_save(state: State):
    """The scenario as saved: it reopens on the row selected now."""
    return state.scenario.with_(focus_row=state.row + 1)


def _same_matrices(a, b) -> bool:
    return io.dumps(a) == io.dumps(b) and all(
        (getattr(a, n) is None and getattr(b, n) is None) or np.array_equal(getattr(a, n), getattr(b, n))
        for n in INPUTS
    )

"""Kept sessions: the explorer's scenario, view and undo history, written when it ends.

One TOML file per session in the per-user state folder ($XDG_STATE_HOME/attn-tui, else
~/.local/state/attn-tui; %LOCALAPPDATA%\\attn-tui on Windows), its text session_toml's (``dumps``,
``loads``: every scenario read through the door of any scenario file), what it holds a
session_kept.Kept. Written with ``core.atomic`` (the durable write of `s`); at most KEEP_FILES files,
the oldest pruned; a file is at most MAX_SESSION_BYTES (the oldest undo steps are dropped to fit).
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .atomic import write_atomic
from .limits import MAX_FILE_BYTES, printable
from .safe_read import read_capped
from .session_folder import FILE_MODE, FolderRefused, prepared, readable
from .session_kept import Kept as Kept
from .session_kept import SessionError
from .session_toml import MAX_SESSION_BYTES, dumps, loads

if TYPE_CHECKING:
    from typing import Any

KEEP_FILES = 20  # kept sessions beyond this are pruned, oldest first
READ_NEWEST = 5  # at most this many files are tried at launch, newest first (a folder full of them)
NAME = re.compile(r"^session-\d{8}T\d{6}Z-[0-9a-f]{8}\.toml$")  # only files of this name are read or pruned


def state_folder(env: Any | None = None) -> Path:
    """The folder kept sessions live in: $XDG_STATE_HOME/attn-tui (an absolute path), else the platform's."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "attn-tui"
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "attn-tui"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "attn-tui"


def read(path: str | Path) -> Kept:
    """The session in ``path``: a regular file of ours (never a symlink), at most the size a scenario may be."""
    path = Path(path)
    name = printable(path)
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise SessionError(f"{name}: cannot read ({exc.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        raise SessionError(f"{name}: a symlink; a kept session is a file of attn-tui's own, ignored")
    raw = read_capped(path, SessionError, MAX_FILE_BYTES + MAX_SESSION_BYTES, "a session file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(f"{name}: not a text (UTF-8) file; ignored") from None
    return loads(text, str(path))


def _ours(folder: Path) -> list[tuple[float, Path]]:
    """(mtime, path) of the regular files and symlinks named like a kept session, newest first (a
    symlink's own mtime: it is not followed)."""
    found = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                # a symlink of our name is listed so that read() refuses it with its line (SESSIONS.md: a
                # symlink is skipped with one line); prune's _remove never removes one, nothing follows it
                if NAME.match(e.name) and (e.is_file(follow_symlinks=False) or e.is_symlink()):
                    found.append((e.stat(follow_symlinks=False).st_mtime, Path(e.path)))
    except OSError:
        return []
    return sorted(found, reverse=True)


def newest(folder: Path) -> tuple[Kept | None, Path | None, list[str]]:
    """The newest readable session in ``folder`` (of the READ_NEWEST newest files), its path, and one
    line per file refused on the way (or the one line refusing the folder: session_folder)."""
    problems: list[str] = []
    try:
        if not readable(folder):
            return None, None, problems
    except FolderRefused as exc:
        return None, None, [str(exc)]
    for _, path in _ours(folder)[:READ_NEWEST]:
        try:
            return read(path), path, problems
        except SessionError as exc:
            problems.append(str(exc).splitlines()[0])
    return None, None, problems


def write(folder: Path, k: Kept, replaces: Path | None = None) -> Path:
    """Write ``k`` as a new file (0600) in ``folder`` (made or tightened 0700: session_folder.prepared),
    remove ``replaces`` (the file this session was restored from, if still a regular file of ours),
    prune beyond KEEP_FILES. FolderRefused for a folder not the user's own; OSError if unwritable."""
    import secrets  # on the first write, not at launch (issue 32)

    real = prepared(folder)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(k.saved))
    path = folder / f"session-{stamp}-{secrets.token_hex(4)}.toml"
    while os.path.lexists(path):  # a new name of our own: never write through something already there
        path = folder / f"session-{stamp}-{secrets.token_hex(4)}.toml"
    within = real if os.name == "posix" else None  # the write lands in the folder checked, even if swapped since
    write_atomic(real / path.name, dumps(k).encode("utf-8"), within=within, new_mode=FILE_MODE)
    if replaces is not None and replaces != path:
        _remove(replaces)
    prune(folder)
    return path


def _remove(path: Path) -> None:
    try:
        if NAME.match(path.name) and stat.S_ISREG(os.lstat(path).st_mode):
            path.unlink()
    except OSError:
        pass


def prune(folder: Path, keep: int = KEEP_FILES) -> None:
    """Remove the kept sessions beyond the ``keep`` newest (files of our name only, never a symlink)."""
    for _, path in _ours(folder)[keep:]:
        _remove(path)

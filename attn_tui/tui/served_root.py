"""The served explorer's one folder: under ``attn-tui serve`` every file door (open, save,
export, screenshot) asks ``rooted`` first, so a tab reads and writes only below the folder the
server was started with (``--root``, default its current folder). The server passes the folder
to each tab in ``ATTN_TUI_ROOT`` (attn_tui/serve/tab.py); in the terminal the variable is unset
and ``rooted`` only expands ``~``: the terminal app is unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT_ENV = "ATTN_TUI_ROOT"


def served_root() -> Path | None:
    """The folder a served tab is kept to (its real path), or None outside ``serve``."""
    root = os.environ.get(ROOT_ENV)
    return Path(root).resolve() if root else None


def rooted(path: str | Path) -> Path:
    """``path`` with ``~`` expanded; when served, its real location (``..`` removed, symlinks
    followed, relative to the current folder, which is the root) and ValueError, one line, when
    that leaves the root. RuntimeError for an unknown ``~user``, as Path.expanduser raises."""
    p = Path(path).expanduser()
    root = served_root()
    if root is None:
        return p
    try:
        real = p.resolve()
    except (RuntimeError, OSError) as exc:  # a symlink loop; a folder we may not read
        raise ValueError(f"{path}: cannot be followed ({getattr(exc, 'strerror', None) or exc})") from None
    if real != root and root not in real.parents:
        raise ValueError(f"{path} is outside the served folder")
    return real


def default_screenshot_folder() -> Path:
    """~/Downloads when it exists (and, when served, lies under the root), else the current folder."""
    downloads = Path("~/Downloads").expanduser()
    if downloads.is_dir():
        try:
            return rooted(downloads)
        except ValueError:
            pass
    return Path(os.getcwd())

"""The kept sessions' folder: a real folder of the user's own, private.

A kept session is read from and written to the state folder only when it is a folder (not a
symlink to one: a link to /etc would put the file there) owned by the user running attn-tui. The
explorer makes it 0700 when it creates it, and a write tightens an existing folder of the user's
to 0700 (it holds only attn-tui's files); each session file is 0600. Anything else is refused with
one line naming the folder (FolderRefused), and the session is not kept.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .limits import printable

PRIVATE = 0o700  # the folder's mode
FILE_MODE = 0o600  # a session file's mode
OWN = "attn-tui keeps sessions only in a folder of your own"


class FolderRefused(ValueError):
    """The state folder is not one a session may go in; str() is the one line, naming it."""


def _refusal(folder: Path, st: os.stat_result) -> str | None:
    name = printable(folder)
    if stat.S_ISLNK(st.st_mode):
        return f"{name} is a symlink (to {printable(os.readlink(folder))}); {OWN}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{name} is not a folder; {OWN}"
    getuid = getattr(os, "getuid", None)  # not on Windows: its folders are per-user already
    if getuid is not None and st.st_uid != getuid():
        return f"{name} belongs to another user (uid {st.st_uid}, you are {getuid()}); {OWN}"
    return None


def readable(folder: Path) -> bool:
    """True when ``folder`` is there and may hold kept sessions, False when it is not there;
    FolderRefused otherwise (a symlink, not a folder, another user's). Nothing is changed."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return False
    line = _refusal(folder, st)
    if line:
        raise FolderRefused(line)
    return True


def prepared(folder: Path) -> Path:
    """``folder`` made ready for a session file: created 0700 when missing, checked (FolderRefused),
    tightened to 0700 when looser; returns its real path (a write lands below it, write_atomic's
    ``within``). OSError when it cannot be made."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(folder, PRIVATE)
    except FileExistsError:
        pass
    readable(folder)
    nofollow = getattr(os, "O_NOFOLLOW", None)
    if nofollow is None:  # Windows: no symlink race to close, no mode bits to set
        return folder
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | nofollow)  # the folder checked, not one swapped in since
    try:
        st = os.fstat(fd)
        line = _refusal(folder, st)
        if line:
            raise FolderRefused(line)
        if stat.S_IMODE(st.st_mode) != PRIVATE:  # made under an odd umask, or left 0777 by someone
            os.fchmod(fd, PRIVATE)
    finally:
        os.close(fd)
    return Path(os.path.realpath(folder))

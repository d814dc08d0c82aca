"""Atomic file writes: a temporary file in the target's folder, fsynced, renamed over it,
then the folder fsynced, so that after a crash or power cut the target holds the old
bytes or the new ones, never half.

A symlink is written through: its final target is replaced and the link stays a link.
The target keeps its permission bits (a 0600 file stays 0600); a new file gets
0666 less the umask, not mkstemp's 0600.

The temporary file is ``.NAME.<random>.attn-tui-tmp``, locked (flock) while it is written. A
process killed mid-save (kill -9, a power cut) leaves one behind; the next save of NAME removes
those older than STALE_AFTER that no live process holds (the lock dies with its process).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no lock, and stale files are left alone
    fcntl = None  # type: ignore[assignment]  # the module or None, as the code below asks

TMP_SUFFIX = ".attn-tui-tmp"
STALE_AFTER = 600  # seconds: a save takes well under this; an older unlocked temporary file is dead


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def target_of(path: str | Path) -> Path:
    """Where writing ``path`` lands: the final target of a symlink (chains followed), else ``path``.

    OSError with the reason for a symlink loop; IsADirectoryError for a folder;
    OSError for a FIFO, device or socket (a scenario is a regular file).
    """
    path = Path(path)
    try:
        real = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        real = Path(os.path.realpath(path))  # a new file, or a symlink whose target is not there yet
    except OSError as exc:  # ELOOP: a symlink loop
        raise OSError(exc.errno, f"cannot follow the symlink ({exc.strerror})", str(path)) from None
    try:
        mode = real.stat().st_mode
    except FileNotFoundError:
        return real
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "is a folder; type a file name inside it", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(22, "is not a regular file (a FIFO, device or socket); not replaced", str(path))
    return real


def file_stamp(path: str | Path) -> tuple[Any, ...] | None:
    """(inode, size, mtime in ns) of the file at ``path`` now (symlinks followed), or None when there
    is none: a save compares it with the one recorded when the file was opened or last saved, so
    that another explorer's save in between is noticed (an atomic save gives a new inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def fsync_folder(folder: Path) -> None:
    """Make the rename durable; a file system that cannot fsync a folder is not an error."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: str | Path, data: bytes, within: Any | None = None, new_mode: int | None = None) -> Path:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never half.

    ``new_mode``: the permission bits of a file that is not there yet (default 0666 less the umask;
    a kept session is 0600).

    ``within`` (a served tab's root, attn_tui/tui/served_root.py): ``path`` was checked to lie below
    it, and the write must land there even if a symlink appears meanwhile (see _write_within).

    Returns ``path`` as given (a symlink stays the name the caller knows)."""
    path = Path(path)
    if within is not None:
        return _write_within(path, data, Path(within), new_mode)
    target = target_of(path)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)  # keep the target's permissions
    except FileNotFoundError:
        mode = 0o666 & ~current_umask() if new_mode is None else new_mode
    remove_stale(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TMP_SUFFIX, dir=target.parent)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # held until closed: a live save's file is not stale
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points at them
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_folder(target.parent)  # ... and so is the new name
    return path


_TMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"  # mkstemp's, so remove_stale knows the names


def _replaced_mode(path: Path, folder: int, new_mode: int | None) -> int:
    """The mode the file at ``path.name`` in ``folder`` (an fd) is written with: the regular file's
    there now (a symlink, a folder or anything else refused), else ``new_mode`` or the umask's."""
    try:
        st = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return 0o666 & ~current_umask() if new_mode is None else new_mode
    if stat.S_ISLNK(st.st_mode):
        raise OSError(errno.ELOOP, "became a symlink after it was checked; not followed", str(path))
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder; type a file name inside it", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "is not a regular file (a FIFO, device or socket); not replaced", str(path))
    return stat.S_IMODE(st.st_mode)


def _write_within(path: Path, data: bytes, within: Path, new_mode: int | None = None) -> Path:
    """write_atomic for a path below ``within`` without a window between check and write: the folder
    is opened once and proved below ``within`` (its fd's inode is that of its real path, which lies
    below), the temporary file is created in that fd (O_EXCL | O_NOFOLLOW) and renamed over the name
    in it. A symlink at the name is not followed (a served path was resolved when checked, so one
    there now appeared since): refused, as is anything but a regular file. OSError, one line."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    folder = os.open(path.parent, flags)
    try:
        real = Path(os.path.realpath(path.parent))
        same = os.path.samestat(os.fstat(folder), os.stat(real))
        if not same or (real != within and within not in real.parents):
            raise OSError(errno.EXDEV, "its folder is no longer below the served folder", str(path))
        mode = _replaced_mode(path, folder, new_mode)
        remove_stale(real / path.name)
        import secrets  # here: its hmac and hashlib cost a launch ~3 ms (issue 32), a write needs them

        tmp = f".{path.name}.{''.join(secrets.choice(_TMP_CHARS) for _ in range(8))}{TMP_SUFFIX}"
        create = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(tmp, create, 0o600, dir_fd=folder)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fchmod(f.fileno(), mode)
                os.fsync(f.fileno())
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=folder)
            except OSError:
                pass
            raise
        try:
            os.fsync(folder)
        except OSError:
            pass
    finally:
        os.close(folder)
    return path


def remove_stale(target: Path, now: float | None = None) -> list[Path]:
    """Remove the temporary files of earlier saves of ``target`` (``.NAME.<random>.attn-tui-tmp``)
    older than STALE_AFTER and locked by no live process; returns those removed. Errors are not
    raised: the save itself matters more."""
    if fcntl is None:
        return []
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[A-Za-z0-9_]{{8}}{re.escape(TMP_SUFFIX)}")
    now = time.time() if now is None else now
    removed = []
    try:
        names = [n for n in os.listdir(target.parent) if pattern.fullmatch(n)]
    except OSError:
        return []
    for name in names:
        path = target.parent / name
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < STALE_AFTER:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError: a live save holds it
            os.unlink(path)
            removed.append(path)
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed

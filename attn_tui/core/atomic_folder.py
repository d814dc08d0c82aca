"""Write a set of files into a folder, all of them or none (the matrices' export).

Writing each file atomically is not enough: a failure at the ninth left X…V of the new scenario
beside S…O of the old one under a dialog that said 'not exported'. Here every file is first
written and fsynced in a staging folder beside them (same file system, so renames are atomic):
a new folder is then renamed into place whole; in an existing one each file is renamed over its
old self after the old one is moved aside, and a failure moves every file back. The staging
folder is removed either way.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .atomic import current_umask, fsync_folder

STAGE_SUFFIX = ".attn-tui-tmp"  # a hidden staging folder: .NAME.<random>.attn-tui-tmp


def _write_synced(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(path, mode)


def write_all_or_none(folder: str | Path, items: Iterable[tuple[str, bytes]]) -> list[Path]:
    """Write each (file name, bytes) of ``items`` into ``folder`` (created with its parents if
    missing); after an error (raised) the folder holds what it held before. A name may be inside
    a subfolder ("frames/f01.svg"), created if missing. Existing files keep their permission bits;
    new ones get 0666 less the umask. Returns the paths written."""
    folder = Path(folder)
    fresh = not folder.exists()
    if fresh:
        folder.parent.mkdir(parents=True, exist_ok=True)
    home = folder.parent if fresh else folder
    stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=STAGE_SUFFIX, dir=home))
    try:
        names = []
        for name, data in items:
            old = folder / name
            mode = stat.S_IMODE(old.stat().st_mode) if old.is_file() else 0o666 & ~current_umask()
            (stage / name).parent.mkdir(mode=0o777 & ~current_umask(), parents=True, exist_ok=True)
            _write_synced(stage / name, data, mode)
            names.append(name)
        fsync_folder(stage)
        if fresh:
            os.chmod(stage, 0o777 & ~current_umask())  # mkdtemp's folder is 0700
            os.rename(stage, folder)  # every file at once
            fsync_folder(folder.parent)
        else:
            _move_in(stage, folder, names)
    finally:
        shutil.rmtree(stage, ignore_errors=True)  # the old files moved aside, or what was staged
    return [folder / n for n in names]


def _move_in(stage: Path, folder: Path, names: list[str]) -> None:
    """Rename the staged files over ``folder``'s; on an error put every old file back."""
    aside = stage / ".old"
    aside.mkdir()
    done: list[tuple[str, bool, bool]] = []  # (name, old moved aside, new moved in)
    made: list[Path] = []  # subfolders created here, removed again on an error
    try:
        for name in names:
            target = folder / name
            if not target.parent.is_dir():
                target.parent.mkdir(mode=0o777 & ~current_umask())
                made.append(target.parent)
            had = os.path.lexists(target)
            if had:
                (aside / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, aside / name)
            done.append((name, had, False))
            os.replace(stage / name, target)
            done[-1] = (name, had, True)
    except BaseException:
        for name, had, moved in reversed(done):
            try:
                if moved:
                    os.replace(folder / name, stage / name)
                if had:
                    os.replace(aside / name, folder / name)
            except OSError:
                pass  # nothing better to do; the error below is what the learner sees
        for sub in reversed(made):
            shutil.rmtree(sub, ignore_errors=True)
        raise
    fsync_folder(folder)

"""Issue 34 item 7: a failed export leaves the folder as it was (it left X…V of the new scenario
beside S…O of the old under 'not exported'), and no staging folder behind."""

import errno
import os

import numpy as np
import pytest

from attn_tui.core import atomic_folder
from attn_tui.core.builtins import builtin
from attn_tui.core.edit import set_cell
from attn_tui.core.export import export


def snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def fail_fsync_from(monkeypatch, n):
    """os.fsync fails (ENOSPC) from its n-th call on: a disk that fills up mid-export."""
    real, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) >= n:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_a_failure_midway_keeps_the_old_export_whole(tmp_path, monkeypatch, fmt):
    old, new = builtin("lesson-pipeline"), set_cell(builtin("lesson-pipeline"), "X", 0, 0, "3")
    folder = tmp_path / "out"
    export(old, old.run(), folder, fmt)
    before = snapshot(folder)
    fail_fsync_from(monkeypatch, 9)
    with pytest.raises(OSError, match="No space"):
        export(new, new.run(), folder, fmt, overwrite=True)
    assert snapshot(folder) == before
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".")]


def test_a_failure_while_renaming_puts_every_old_file_back(tmp_path, monkeypatch):
    old, new = builtin("lesson-pipeline"), set_cell(builtin("lesson-pipeline"), "X", 0, 0, "3")
    folder = tmp_path / "out"
    export(old, old.run(), folder)
    (folder / "notes.txt").write_text("mine")  # a file of the learner's stays untouched
    before = snapshot(folder)
    real, calls = os.replace, []

    def replace(a, b):
        calls.append(b)
        if len(calls) == 11:
            raise OSError(errno.EIO, "Input/output error")
        return real(a, b)

    monkeypatch.setattr(atomic_folder.os, "replace", replace)
    with pytest.raises(OSError):
        export(new, new.run(), folder, overwrite=True)
    monkeypatch.setattr(atomic_folder.os, "replace", real)
    assert snapshot(folder) == before


def test_a_new_folder_appears_whole_or_not_at_all(tmp_path, monkeypatch):
    s = builtin("lesson-pipeline")
    fail_fsync_from(monkeypatch, 5)
    with pytest.raises(OSError):
        export(s, s.run(), tmp_path / "a" / "out")
    assert not (tmp_path / "a" / "out").exists() and list((tmp_path / "a").iterdir()) == []


def test_an_overwrite_replaces_every_file_and_keeps_modes(tmp_path):
    old, new = builtin("lesson-pipeline"), set_cell(builtin("lesson-pipeline"), "X", 0, 0, "3")
    folder = tmp_path / "out"
    paths = export(old, old.run(), folder, "npy")
    os.chmod(paths[0], 0o600)
    export(new, new.run(), folder, "npy", overwrite=True)
    assert np.array_equal(np.load(folder / "S.npy"), new.run().S)
    assert oct(paths[0].stat().st_mode & 0o777) == "0o600"
    mask = os.umask(0)
    os.umask(mask)
    assert oct(folder.stat().st_mode & 0o777) == oct(0o777 & ~mask)  # the folder first made, not mkdtemp's 0700
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)


def test_the_sweep_export_is_all_or_none_too(tmp_path, monkeypatch):
    """The experiments screen's sweep: the animated SVG and its frames folder, together or not at all."""
    from attn_tui.core.experiments import scale_sweep
    from attn_tui.report import sweep_svg

    labels = [f"t{i + 1}" for i in range(8)]
    frames = scale_sweep()
    sweep_svg.export(frames[:3], labels, tmp_path / "out")

    def files():
        return {p.relative_to(tmp_path): p.read_bytes() for p in sorted((tmp_path / "out").rglob("*")) if p.is_file()}

    before = files()
    real, made = sweep_svg.frame_svg, []

    def frame_svg(fr, labels, *ylim):  # the third frame fails (a full disk, say): two are done by then
        made.append(1)
        if len(made) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fr, labels, *ylim)

    monkeypatch.setattr(sweep_svg, "frame_svg", frame_svg)
    with pytest.raises(OSError):
        sweep_svg.export(frames, labels, tmp_path / "out")
    assert files() == before and not [p for p in tmp_path.rglob(".*")]
    monkeypatch.undo()
    sweep_svg.export(frames, labels, tmp_path / "out")
    assert len(list((tmp_path / "out" / "softmax_sharpening_frames").iterdir())) == len(frames)

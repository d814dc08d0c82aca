"""Issue 10, saving: the file and its folder are fsynced around the rename, the target keeps
its permissions, a symlink is written through (it stays a link), and what cannot be
written (a symlink loop, a FIFO, a folder) is refused with the reason and nothing left behind."""

from __future__ import annotations

import os
import stat

import pytest

from attn_tui.core.atomic import write_atomic
from attn_tui.core.builtins import builtin
from attn_tui.core.scenario_io import dumps, load, save

PIPE, HAND = builtin("lesson-pipeline"), builtin("lesson-handcrafted")


def listing(folder):
    return sorted(os.listdir(folder))


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_overwriting_keeps_the_targets_permissions(tmp_path, mode):
    f = tmp_path / "mine.toml"
    save(HAND, f)
    os.chmod(f, mode)
    save(PIPE, f, overwrite=True)
    assert stat.S_IMODE(f.stat().st_mode) == mode
    assert f.read_text(encoding="utf-8") == dumps(PIPE)


def test_a_new_file_gets_the_umask_not_0600(tmp_path):
    old = os.umask(0o027)
    try:
        save(PIPE, tmp_path / "new.toml")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o640


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    real_dir, link_dir = tmp_path / "real", tmp_path / "links"
    real_dir.mkdir()
    link_dir.mkdir()
    target = real_dir / "target.toml"
    save(HAND, target)
    os.chmod(target, 0o600)
    link = link_dir / "link.toml"
    link.symlink_to(os.path.join("..", "real", "target.toml"))  # relative, into another folder
    save(PIPE, link, overwrite=True)
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "real", "target.toml")
    assert target.read_text(encoding="utf-8") == dumps(PIPE)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert listing(link_dir) == ["link.toml"] and listing(real_dir) == ["target.toml"]  # no temporary left


def test_a_chain_of_links_and_a_dangling_link(tmp_path):
    c = tmp_path / "c.toml"
    save(HAND, c)
    (tmp_path / "b.toml").symlink_to(c)
    (tmp_path / "a.toml").symlink_to(tmp_path / "b.toml")
    save(PIPE, tmp_path / "a.toml", overwrite=True)
    assert (tmp_path / "a.toml").is_symlink() and (tmp_path / "b.toml").is_symlink()
    assert c.read_text(encoding="utf-8") == dumps(PIPE)
    dangling = tmp_path / "d.toml"
    dangling.symlink_to(tmp_path / "later.toml")
    save(PIPE, dangling)  # the link's target is created; the link stays
    assert dangling.is_symlink() and (tmp_path / "later.toml").read_text(encoding="utf-8") == dumps(PIPE)


def test_a_symlink_loop_is_refused_with_the_reason(tmp_path):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(OSError, match="symlink.*(Too many levels|loop)") as err:
        save(PIPE, a, overwrite=True)
    assert str(a) in str(err.value)
    assert a.is_symlink() and b.is_symlink() and listing(tmp_path) == ["a.toml", "b.toml"]


def test_a_fifo_or_a_folder_is_not_replaced(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        save(PIPE, fifo, overwrite=True)  # refused by stat: nothing opens the FIFO, nothing blocks
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path / "dir.toml", b"x")
    assert listing(tmp_path) == ["dir.toml", "fifo.toml"]


def test_the_file_is_fsynced_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    f = tmp_path / "mine.toml"
    save(HAND, f)
    calls = []
    real_fsync = os.fsync

    def fsync(fd):
        st = os.fstat(fd)
        calls.append(("folder" if stat.S_ISDIR(st.st_mode) else "file", st.st_ino, f.read_text(encoding="utf-8")))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    save(PIPE, f, overwrite=True)
    assert [c[0] for c in calls] == ["file", "folder"]
    (_, file_ino, seen_then), (_, dir_ino, seen_after) = calls
    assert file_ino == f.stat().st_ino  # the temporary file that became the target ...
    assert seen_then == dumps(HAND)  # ... synced while the target still held the old bytes
    assert dir_ino == tmp_path.stat().st_ino and seen_after == dumps(PIPE)


def test_a_failing_fsync_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    f = tmp_path / "mine.toml"
    save(HAND, f)

    def fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError, match="Input/output"):
        save(PIPE, f, overwrite=True)
    assert f.read_text(encoding="utf-8") == dumps(HAND) and listing(tmp_path) == ["mine.toml"]
    monkeypatch.undo()
    assert load(f).title == HAND.title


def test_within_a_root_the_write_lands_below_it(tmp_path):
    """write_atomic(..., within=root) (a served tab's save): a new file and a replaced one land in the
    folder opened; a symlink at the name (to a file outside) is refused, not followed; a folder that
    is now a symlink out of the root is refused; permissions are kept; no temporary file remains."""
    import os

    from attn_tui.core.atomic import write_atomic

    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    victim = outside / "victim"
    victim.write_bytes(b"keep")
    write_atomic(root / "sub" / "a.toml", b"one", within=root)
    (root / "sub" / "a.toml").chmod(0o640)
    write_atomic(root / "sub" / "a.toml", b"two", within=root)
    assert (root / "sub" / "a.toml").read_bytes() == b"two"
    assert (root / "sub" / "a.toml").stat().st_mode & 0o777 == 0o640
    (root / "sub" / "link").symlink_to(victim)
    with pytest.raises(OSError, match="became a symlink"):
        write_atomic(root / "sub" / "link", b"evil", within=root)
    (root / "moved").symlink_to(outside)  # a folder swapped for a symlink out
    with pytest.raises(OSError, match="no longer below the served folder"):
        write_atomic(root / "moved" / "victim", b"evil", within=root)
    assert victim.read_bytes() == b"keep"
    assert sorted(os.listdir(root / "sub")) == ["a.toml", "link"] and os.listdir(outside) == ["victim"]

"""core/session_folder.py (issue 44): a kept session goes only in a folder of the user's own. A
symlinked state folder (to another folder: the test's stand-in for /etc) or one owned by another
user is refused with one line naming it, and nothing is written there or read from it; the folder
is made 0700, an existing looser one is tightened to 0700, and each session file is 0600."""

from __future__ import annotations

import os
import stat

import pytest

from attn_tui.core import session_folder
from attn_tui.core import session_store as store
from tests.core.test_session_store import a_session


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_symlinked_state_folder_is_refused_for_writing_and_reading(tmp_path):
    elsewhere = tmp_path / "etc"
    elsewhere.mkdir(mode=0o755)
    before = mode(elsewhere)
    folder = tmp_path / "state" / "attn-tui"
    folder.parent.mkdir()
    folder.symlink_to(elsewhere)
    with pytest.raises(session_folder.FolderRefused) as refused:
        store.write(folder, a_session())
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{folder} is a symlink (to {elsewhere})")
    assert list(elsewhere.iterdir()) == [] and mode(elsewhere) == before  # not written, not tightened
    planted = elsewhere / "session-20260101T000000Z-00000000.toml"
    planted.write_text(store.dumps(a_session()))  # a session planted where the link points
    kept, path, problems = store.newest(folder)
    assert kept is None and path is None and problems == [line]


def test_a_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "attn-tui"
    folder.mkdir(mode=0o777)
    store.write(folder, a_session())  # ours: written
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)  # the folder is now another user's
    with pytest.raises(session_folder.FolderRefused, match=rf"^{folder} belongs to another user \(uid {me}"):
        store.write(folder, a_session())
    assert len(list(folder.iterdir())) == 1
    assert store.newest(folder)[0] is None


def test_the_folder_is_made_or_tightened_to_0700_and_files_are_0600(tmp_path):
    old = os.umask(0o022)
    try:
        made = tmp_path / "new" / "attn-tui"
        loose = tmp_path / "loose"
        loose.mkdir()
        os.chmod(loose, 0o777)
        paths = [store.write(made, a_session()), store.write(loose, a_session())]
    finally:
        os.umask(old)
    assert mode(made) == mode(loose) == 0o700
    assert [mode(p) for p in paths] == [0o600, 0o600]
    assert all(store.read(p).scenario.title == a_session().scenario.title for p in paths)


def test_a_file_where_the_folder_goes_is_one_line(tmp_path):
    folder = tmp_path / "attn-tui"
    folder.write_text("mine")
    with pytest.raises(session_folder.FolderRefused, match=f"^{folder} is not a folder"):
        store.write(folder, a_session())
    assert folder.read_text() == "mine"

"""Issue 34 item 9: a save killed mid-write (kill -9) left a hidden temporary file for ever. The next
save of the same file removes those of our naming pattern that are older than STALE_AFTER and that
no live process holds; a learner's own hidden files and a save in progress are left alone."""

import fcntl
import os
import signal
import subprocess
import sys
import time

from attn_tui.core import atomic
from attn_tui.core.atomic import STALE_AFTER, TMP_SUFFIX, write_atomic

OLD = time.time() - STALE_AFTER - 60


def aged(path, when=OLD):
    path.write_bytes(b"half a scenario")
    os.utime(path, (when, when))
    return path


def hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_save_killed_with_sigkill_leaves_a_file_the_next_save_removes(tmp_path):
    target = tmp_path / "s.toml"
    code = (
        "import sys, tempfile, fcntl, time\n"
        f"fd, name = tempfile.mkstemp(prefix='.s.toml.', suffix={TMP_SUFFIX!r}, dir={str(tmp_path)!r})\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint(name, flush=True)\ntime.sleep(600)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        name = child.stdout.readline().strip()  # the child holds its temporary file, locked
        os.utime(name, (OLD, OLD))
        write_atomic(target, b"first")
        assert os.path.exists(name)  # a live process holds it: not removed, however old
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    write_atomic(target, b"second")
    assert not os.path.exists(name) and hidden(tmp_path) == [] and target.read_bytes() == b"second"


def test_only_old_unheld_files_of_this_name_and_pattern_go(tmp_path):
    target = tmp_path / "s.toml"
    stale = aged(tmp_path / f".s.toml.abcd_123{TMP_SUFFIX}")
    keep = [
        aged(tmp_path / f".s.toml.efgh_456{TMP_SUFFIX}", time.time()),  # recent: maybe a save now
        aged(tmp_path / f".other.toml.abcd_123{TMP_SUFFIX}"),  # another file's
        aged(tmp_path / ".s.toml.backup12"),  # the learner's own (the old mkstemp pattern, too risky)
        aged(tmp_path / f".s.toml.toolongname{TMP_SUFFIX}"),
    ]
    held = aged(tmp_path / f".s.toml.held_789{TMP_SUFFIX}")
    with open(held, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        write_atomic(target, b"x")
    assert not stale.exists() and held.exists() and all(p.exists() for p in keep)
    assert atomic.remove_stale(target) == [held]  # unlocked now


def test_the_temporary_name_follows_the_pattern_the_cleaner_removes(tmp_path, monkeypatch):
    seen = []
    real = os.replace
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: seen.append(os.path.basename(a)) or real(a, b))
    write_atomic(tmp_path / "s.toml", b"x")
    (name,) = seen
    assert (
        name.startswith(".s.toml.") and name.endswith(TMP_SUFFIX) and len(name) == len(".s.toml.") + 8 + len(TMP_SUFFIX)
    )

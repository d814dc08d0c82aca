"""core.safe_read: what read_capped refuses and says, how it opens and how far it reads; and
structure_problem's scan, with its limits lowered (monkeypatched) so that a few hand-counted
brackets reach them: a bracket inside any kind of TOML string or comment is not counted, an
escaped quote does not end a string, and the refusal names the key and the line. Written to
kill the mutants of core/safe_read.py (scripts/mutation.sh).
"""

from __future__ import annotations

import os
import socket
import stat

import pytest

from attn_tui.core import safe_read
from attn_tui.core.safe_read import read_capped, structure_problem


class DoorError(ValueError):
    pass


def refused(path, **kw):
    with pytest.raises(DoorError) as e:
        read_capped(path, DoorError, **kw)
    assert type(e.value) is DoorError
    return str(e.value)


# -- read_capped -----------------------------------------------------------------------------
def test_kinds_of_file_that_are_not_read():
    assert safe_read._kind(stat.S_IFREG) is None
    assert safe_read._kind(stat.S_IFDIR) == "a folder"
    assert safe_read._kind(stat.S_IFIFO) == "a FIFO (named pipe)"
    assert safe_read._kind(stat.S_IFCHR) == "a character device"
    assert safe_read._kind(stat.S_IFBLK) == "a block device"
    assert safe_read._kind(stat.S_IFSOCK) == "a socket"
    assert safe_read._kind(stat.S_IFLNK) == "not a regular file"


def test_refusals_name_the_file_and_the_reason(tmp_path):
    assert refused(tmp_path) == f"{tmp_path}: is a folder, not a scenario file"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert refused(fifo) == f"{fifo}: is a FIFO (named pipe), not a regular file; a scenario is a TOML file"
    assert refused("/dev/null") == "/dev/null: is a character device, not a regular file; a scenario is a TOML file"
    sock_path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        assert refused(sock_path).endswith(": is a socket, not a regular file; a scenario is a TOML file")
    assert refused(tmp_path / "none") == f"{tmp_path / 'none'}: no such file"
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    assert refused(loop) == f"{loop}: cannot read ({os.strerror(40)})"  # ELOOP: the OS's reason, no errno
    assert refused("a\0b") == "a\\x00b: cannot read (embedded null byte)"


def test_the_size_limit_is_inclusive_and_named_in_mib(tmp_path):
    f = tmp_path / "f.toml"
    f.write_bytes(b"x" * 2**20)
    assert read_capped(f, limit=2**20) == b"x" * 2**20
    assert refused(f, limit=2**20 - 1) == f"{f}: larger than 0 MiB; a scenario file is at most that"
    f.write_bytes(b"y" * (3 * 2**20 + 1))
    assert refused(f, limit=3 * 2**20) == f"{f}: larger than 3 MiB; a scenario file is at most that"
    assert refused(f, limit=3 * 2**20, kind="an array file") == f"{f}: larger than 3 MiB; an array file is at most that"


def test_a_file_whose_size_stat_does_not_tell_is_still_capped():
    """/proc files stat as 0 bytes: the read itself stops one byte past the limit."""
    data = read_capped("/proc/self/maps")
    assert len(data) > 200
    assert (
        refused("/proc/self/maps", limit=100) == "/proc/self/maps: larger than 0 MiB; a scenario file is at most that"
    )
    assert read_capped("/proc/self/maps", limit=len(data) + 4096)[:100] == data[:100]


def test_a_file_that_grows_after_its_stat_is_still_capped(tmp_path, monkeypatch):
    """The stat said 0 bytes (a file still being written, a /proc file): reading stops one byte past
    the limit, also when the limit is a whole number of the 1 MiB chunks read."""
    f = tmp_path / "f.toml"
    f.write_bytes(b"z" * (2**20 + 10))
    real_stat = os.stat
    monkeypatch.setattr(
        os,
        "stat",
        lambda p, *a, **k: os.stat_result(tuple(real_stat(p, *a, **k))[:6] + (0,) + tuple(real_stat(p, *a, **k))[7:]),
    )
    assert refused(f, limit=2**20) == f"{f}: larger than 1 MiB; a scenario file is at most that"
    assert read_capped(f, limit=2**20 + 10) == b"z" * (2**20 + 10)


def test_it_opens_without_blocking_and_closes_on_exec(tmp_path, monkeypatch):
    f = tmp_path / "f.toml"
    f.write_bytes(b"a = 1\n")
    seen = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, flags, *a: seen.append(flags) or real_open(p, flags, *a))
    assert read_capped(f) == b"a = 1\n"
    assert seen and seen[0] & os.O_NONBLOCK and seen[0] & os.O_CLOEXEC and seen[0] & os.O_ACCMODE == os.O_RDONLY


def test_errors_after_the_stat(tmp_path, monkeypatch):
    f = tmp_path / "f.toml"
    f.write_bytes(b"a = 1\n")

    def denied(*a):
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as m:
        m.setattr(os, "open", denied)
        assert refused(f) == f"{f}: cannot read (Permission denied)"
    with monkeypatch.context() as m:
        m.setattr(os, "read", lambda *a: (_ for _ in ()).throw(OSError(5, "Input/output error")))
        assert refused(f) == f"{f}: cannot read (Input/output error)"
    with monkeypatch.context() as m:  # swapped for a FIFO between the stat and the open
        real_fstat = os.fstat
        m.setattr(os, "fstat", lambda fd: os.stat_result((stat.S_IFIFO | 0o644,) + tuple(real_fstat(fd))[1:]))
        assert refused(f) == f"{f}: is a FIFO (named pipe), not a regular file; a scenario is a TOML file"


# -- structure_problem -----------------------------------------------------------------------
LISTS_TAIL = "a matrix has one per row, and sizes (T, T', d_model, d_k, d_v) are at most 512"

# (text, the real lists in it, the key and line of the last one): every other bracket sits in
# a string or a comment
DECOYS = [
    ('a = ["[", \'[\', "{"]\nb = [1]', 2, "b", 2),
    ('a = "\\"[" \nb = [[1]]', 2, "b", 2),  # an escaped quote does not end the string
    ('a = "\\\\" \nb = [1] \nc = "x\\\\\\"[" \nd = [2]', 2, "d", 4),  # \\ ends it; \\\" does not
    ('a = """\n[ "[ \\""" [\n""" \nb = [1]\nc = [2]', 2, "c", 5),  # multi-line, an escaped """ inside
    ("a = '''[\n[ ''' \nb = [1] # [ [ [\nc = [2]", 2, "c", 4),  # multi-line literal, a comment
    ("a = 'x\\' \nb = [1]\nc = [2]", 2, "c", 3),  # a literal string ends at its quote, backslash or not
    ('a = "open\nb = [1]\nc = [2]', 2, "c", 3),  # unterminated: the scan goes on from the next line
    ("x = 1\n[[t]]\ny = 2", 2, "x", 2),
    ('a = ""\nb = [1, [2]]', 2, "b", 2),
    ('a = "[\nb = [1]', 1, "b", 2),  # the unterminated string stops at its line's end
    ("\nb = [1]", 1, "b", 2),  # a first empty line counts
    ('a = "open\nb = [1, "x"]\nc = [2]', 2, "c", 3),  # an unterminated string stops at its line's end
    ('a = "abc\\"[" \nb = [1]', 1, "b", 2),  # an escaped quote at an odd position
    ('a = ["\\\\", [1], "x"]', 2, "a", 1),  # "\\" ends at its quote: [1] is outside
    ('a = ["", [1], ""]', 2, "a", 1),  # an empty string ends at once
    ('a = """"""\nb = [1]\nc = """[\n"""\nd = [2]', 2, "d", 5),  # an empty multi-line string
    ('a = """x"""\nb = [1]\nc = """y"""\nd = [2]', 2, "d", 4),  # each ends at its first closing
    ('a = """x\\""""\nb = [1]\nc = """y"""\nd = [2]', 2, "d", 4),  # an escaped quote, then the closing
    ('a = ["x\\"", [1]]', 2, "a", 1),  # an escaped quote right before the closing one
    ("a = 1 # x # [ [\nb = [1]\nc = [2]", 2, "c", 3),  # a comment runs to its line's end, past a second '#'
    ("a = 1 # [\nb = [1]\nc = [2]", 2, "c", 3),  # ... its own line's end, not the text's last line
    ("a = 1 # c\n[[t]]", 2, "a", 2),  # the next line starts right after the newline
    ("b = [1]\nc = [2] # [", 2, "c", 2),  # a comment on the last line, no newline after it
    ('"\nb = [1]\nc = [2] "', 2, "c", 3),  # a string opened at index 0 still ends at its line's end
]


@pytest.mark.parametrize("text, n, key, line", DECOYS)
def test_only_brackets_outside_strings_and_comments_count(text, n, key, line, monkeypatch):
    monkeypatch.setattr(safe_read, "MAX_LISTS", n)
    assert structure_problem(text) is None
    monkeypatch.setattr(safe_read, "MAX_LISTS", n - 1)
    assert structure_problem(text) == f"{key}: more than {n - 1:,} lists (line {line}); {LISTS_TAIL}"


def test_an_unterminated_multi_line_string_is_left_to_tomllib(monkeypatch):
    monkeypatch.setattr(safe_read, "MAX_LISTS", 0)
    assert structure_problem('a = """[\n') is None and structure_problem("a = '''x") is None
    assert structure_problem('a = """[ """\nb = [1]') == f"b: more than 0 lists (line 2); {LISTS_TAIL}"


def test_nesting_depth(monkeypatch):
    monkeypatch.setattr(safe_read, "MAX_NESTING", 2)
    assert structure_problem("a = [[1], [2]]\nb = {c = [1]}") is None  # closing brackets bring the depth back
    assert structure_problem("]]]\na = [[1]]") is None  # a stray ']' does not go below 0
    assert structure_problem('a = [[""""""]]\nb = [[1]]') is None  # the ']' right after a closing counts
    assert structure_problem("a = [[1], [[2]]]") == "a: brackets nest more than 2 deep (line 1); a matrix needs two"
    assert structure_problem("a = 1\nb = [[\n[1]]]") == "b: brackets nest more than 2 deep (line 3); a matrix needs two"
    assert structure_problem("[[[") == "brackets nest more than 2 deep (line 1); a matrix needs two"


def test_tokens_commas_and_equals(monkeypatch):
    monkeypatch.setattr(safe_read, "MAX_TOKENS", 4)
    assert structure_problem('a = ["x", "y"]') is None  # [ "x" "y" ]: 4
    assert structure_problem('a = ["x", "y"] # z') == (
        "a: more than 4 brackets, strings and comments (line 1); far more than a scenario has"
    )
    monkeypatch.setattr(safe_read, "MAX_VALUES", 1234)
    assert structure_problem("a = [" + "0," * 1234 + "]") is None
    assert structure_problem("a = [" + "0," * 1235 + "]") == (
        "more than 1,234 commas; a scenario holds at most 5 matrices of 512 x 512"
    )
    monkeypatch.setattr(safe_read, "MAX_KEYS", 1500)
    assert structure_problem("k = 1\n" * 1500) is None
    assert structure_problem("k = 1\n" * 1501) == "more than 1,500 '=' signs; a scenario has a few keys"

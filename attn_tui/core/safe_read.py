"""Reading a scenario file without blocking, without reading without end, and without
recursing or allocating without end: stat before open (a FIFO, a device, a folder is refused
unopened), open non-blocking, read at most MAX_FILE_BYTES, and count nesting, lists, strings,
commas and '=' before tomllib parses.
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from .limits import (
    MAX_FILE_BYTES,
    MAX_KEY_DOTS,
    MAX_KEY_PARTS,
    MAX_KEYS,
    MAX_LISTS,
    MAX_NESTING,
    MAX_TOKENS,
    MAX_VALUES,
    TOML_MAX,
    printable,
    shown,
)
from .numparse import UNDERFLOW, underflows

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    """None for a regular file, else what it is (a folder, a FIFO, a device, ...)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def _refuse_kind(name: str, mode: int, error: type[Exception]) -> None:
    kind = _kind(mode)
    if kind == "a folder":
        raise error(f"{name}: is a folder, not a scenario file")
    if kind:
        raise error(f"{name}: is {kind}, not a regular file; a scenario is a TOML file")


def read_capped(
    path: str | Path, error: type[Exception] = ValueError, limit: int = MAX_FILE_BYTES, kind: str = "a scenario file"
) -> bytes:
    """The bytes of the regular file ``path`` (symlinks followed), at most ``limit`` (MAX_FILE_BYTES).

    Refuses, with one line naming the file: a missing file, a folder, a FIFO or device
    (by stat, before opening: nothing blocks), a symlink loop or an over-long name (the
    OS's reason), and a file larger than MAX_FILE_BYTES.
    """
    name = printable(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except (OSError, ValueError) as exc:  # ELOOP, ENAMETOOLONG, EACCES; ValueError: a NUL in the name
        raise error(f"{name}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    _refuse_kind(name, st.st_mode, error)
    too_big = f"{name}: larger than {limit // 2**20} MiB; {kind} is at most that"
    if st.st_size > limit:
        raise error(too_big)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror})") from None
    try:
        _refuse_kind(name, os.fstat(fd).st_mode, error)  # swapped for a FIFO after the stat
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(2**20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if size > limit:
        raise error(too_big)
    return b"".join(chunks)


_SPECIAL = re.compile(r"[\[\]{}\"'#]")


def _escaped(text: str, p: int) -> bool:
    """True if text[p] is preceded by an odd number of backslashes."""
    k = p
    while k > 0 and text[k - 1] == "\\":
        k -= 1
    return (p - k) % 2 == 1


def _string_end(text: str, j: int) -> int:
    """Index just after the TOML string starting at ``j`` (-1: unterminated multi-line string)."""
    q = text[j]
    esc = q == '"'
    if text.startswith(q * 3, j):
        k = j + 3
        while True:
            p = text.find(q * 3, k)
            if p == -1:
                return -1
            if not (esc and _escaped(text, p)):
                return p + 3
            k = p + 1
    k = j + 1
    nl = text.find("\n", k)
    line_end = len(text) if nl == -1 else nl
    while True:
        p = text.find(q, k, line_end)
        if p == -1:
            return line_end  # unterminated: tomllib will say so; scan on from the next line
        if not (esc and _escaped(text, p)):
            return p + 1
        k = p + 1


_KEY = re.compile(r"^[ \t]*([A-Za-z0-9_-]+)[ \t]*=", re.MULTILINE)


def _at(text: str, j: int, what: str, why: str) -> str:
    """ "Q: <what> (line 3); <why>" -- naming the key whose value holds position ``j``."""
    keys = list(_KEY.finditer(text, 0, j))
    key = keys[-1] if keys else None
    return (f"{key.group(1)}: " if key else "") + f"{what} (line {text.count(chr(10), 0, j) + 1}); {why}"


_PART = r"[A-Za-z0-9_-]+"  # a bare key part (a quoted one is blanked to q first); one character class
_TWO_DOTS = re.compile(rf"""\.[ \t]*(?:{_PART}|"[^"\n]*"|'[^'\n]*')[ \t]*\.""")
_CHAIN = re.compile(rf"(?<![A-Za-z0-9_.-]){_PART}[ \t]*\.[ \t]*{_PART}[ \t]*\.")  # a key of 3+ parts starts
_NEXT = re.compile(rf"[ \t]*\.[ \t]*{_PART}")
_QUOTE_OR_HASH = re.compile("[\"'#]")


def _bare(text: str) -> str:
    """``text`` with each string as ``q`` (its newlines kept, for line numbers) and no comments.
    Run after the scan of structure_problem, so there are at most MAX_TOKENS of them."""
    out, i = [], 0
    while m := _QUOTE_OR_HASH.search(text, i):
        j = m.start()
        out.append(text[i:j])
        if m.group() == "#":
            nl = text.find("\n", j)
            i = len(text) if nl == -1 else nl
        else:
            end = _string_end(text, j)
            i = len(text) if end == -1 else end
            out.append("q" + "\n" * text.count("\n", j, i))
    out.append(text[i:])
    return "".join(out)


def dotted_problem(text: str) -> str | None:
    """Why tomllib should not see ``text``'s dotted keys, or None: tomllib's memory grows with the
    square of one key's parts (20,000 parts in 140 KB took 1.5 GiB) and with their total. A
    scenario's keys are plain names; a float (1.5) has one dot and a key a.b is refused later as
    unknown, so only keys of 3 parts or more count. Parts are counted one by one up to the limit
    (no regex repetition over a chain of a million parts)."""
    if not _TWO_DOTS.search(text):  # at C speed: no part between two dots, no key of 3 parts
        return None
    bare, total, i = _bare(text), 0, 0
    while m := _CHAIN.search(bare, i):
        parts, i = 2, m.end() - 1  # at the second dot
        while parts <= MAX_KEY_PARTS and (n := _NEXT.match(bare, i)):
            parts, i = parts + 1, n.end()
        if parts > MAX_KEY_PARTS:
            why = f"at most {MAX_KEY_PARTS}; a scenario's keys are plain names"
            return _at(bare, m.start(), f"a dotted key of more than {MAX_KEY_PARTS} parts", why)
        total += parts - 1
        if total > MAX_KEY_DOTS:
            why = "a scenario's keys are plain names"
            return _at(bare, m.start(), f"more than {MAX_KEY_DOTS:,} dotted key parts", why)
    return None


def structure_problem(text: str) -> str | None:
    """Why tomllib should not parse ``text`` (it would recurse too deep or build too many
    objects: 64 MiB of ``[],`` is 1.7 GB of lists), or None. Commas and '=' are counted at C
    speed; brackets, strings and comments by one linear scan that stops at the first limit."""
    if text.count(",") > MAX_VALUES:
        return f"more than {MAX_VALUES:,} commas; a scenario holds at most 5 matrices of {TOML_MAX} x {TOML_MAX}"
    if text.count("=") > MAX_KEYS:
        return f"more than {MAX_KEYS:,} '=' signs; a scenario has a few keys"
    return _scan_problem(text) or dotted_problem(text)


def outer_structure_problem(text: str) -> str | None:
    """structure_problem for a file whose strings hold scenarios (a kept session: each step's scenario
    TOML is a string, judged by structure_problem when read): the same scan of brackets, strings and
    comments and the same dotted-key check, with commas and '=' counted outside the strings only (its
    scenarios' own are theirs). Before, a session skipped the pre-scan: an 83 KB file with a dotted key
    of 40,000 parts took 3.8 GB in tomllib at every launch."""
    problem = _scan_problem(text)
    if problem:
        return problem
    bare = _bare(text)  # its strings as one letter: bounded by the scan's MAX_TOKENS
    if bare.count(",") > MAX_VALUES:
        return f"more than {MAX_VALUES:,} commas outside its scenarios"
    if bare.count("=") > MAX_KEYS:
        return f"more than {MAX_KEYS:,} '=' signs outside its scenarios"
    return dotted_problem(text)


def _scan_problem(text: str) -> str | None:
    """Brackets (nesting, lists), strings and comments counted by one linear scan."""
    depth = lists = tokens = i = 0
    while m := _SPECIAL.search(text, i):
        j, ch = m.start(), m.group()
        tokens += 1
        if tokens > MAX_TOKENS:
            return _at(
                text, j, f"more than {MAX_TOKENS:,} brackets, strings and comments", "far more than a scenario has"
            )
        if ch in "[{":
            depth, lists = depth + 1, lists + 1
            if depth > MAX_NESTING:
                return _at(text, j, f"brackets nest more than {MAX_NESTING} deep", "a matrix needs two")
            if lists > MAX_LISTS:
                return _at(
                    text,
                    j,
                    f"more than {MAX_LISTS:,} lists",
                    f"a matrix has one per row, and sizes (T, T', d_model, d_k, d_v) are at most {TOML_MAX}",
                )
            i = j + 1
        elif ch in "]}":
            depth = max(0, depth - 1)
            i = j + 1
        elif ch == "#":
            nl = text.find("\n", j)
            i = len(text) if nl == -1 else nl + 1
        else:
            i = _string_end(text, j)
            if i == -1:  # an unterminated multi-line string: tomllib says where
                return None
    return None


class _Underflow(Exception):
    """tomllib's float hook met a literal that underflows (its argument); loads_toml says where."""


class FloatRefused(ValueError):
    """A float in TOML text that tomllib would read as another number; str(): one line, key and line."""


def loads_toml(text: str) -> dict[Any, Any]:
    """tomllib.loads, a float literal that float64 reads as 0 though it is not (``1e-400``) refused:
    FloatRefused "Q: '1e-400' (line 2); float64 would read it as 0 ...". Every TOML door reads through
    here (scenario files, kept sessions), as every typed number goes through numparse.parse_float."""
    import tomllib  # here: a launch without a file reads none (issue 32)

    def parse_float(literal: str) -> float:
        if underflows(literal):
            raise _Underflow(literal)
        return float(literal)

    try:
        return tomllib.loads(text, parse_float=parse_float)
    except _Underflow as exc:
        literal = exc.args[0]
        bare = _bare(text)  # strings and comments out: the literal as a value, not inside a title
        at = re.search(rf"(?<![\w.+-]){re.escape(literal)}(?![\w.])", bare)
        why = f"{UNDERFLOW}; write 0 for zero"
        raise FloatRefused(_at(bare, at.start() if at else 0, shown(literal), why)) from None

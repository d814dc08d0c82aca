"""Kept sessions: the explorer's scenario, view and undo history, written when it ends.

One TOML file per session in the per-user state folder ($XDG_STATE_HOME/attn-tui, else
~/.local/state/attn-tui; %LOCALAPPDATA%\\attn-tui on Windows): a header (format, when,
why, name, edits, source), the view (row, cursor, the pin's row, and which head of a multi-head
source each scenario was: ``head``, ``past_heads``, ``future_heads``) and each scenario as a
multi-line string holding the same TOML ``scenario_io.dumps`` writes. Reading sends every
scenario through the door of any scenario file (``scenario_io.loads`` and ``limits.admit``),
so a hostile state file is refused with one line like a hostile scenario. Written with
``core.atomic`` (the durable write of `s`); at most KEEP_FILES files, the oldest pruned; a file
is at most MAX_SESSION_BYTES (the oldest undo steps are dropped to fit).
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import scenario_io as io
from .atomic import write_atomic
from .limits import MAX_FILE_BYTES, admit, printable, shown
from .safe_read import loads_toml, read_capped
from .scenario import Scenario
from .session_folder import FILE_MODE, FolderRefused, prepared, readable
from .session_heads import HeadAt, count_edits, head_toml, read_head, read_step_heads, with_heads
from .session_tour import TourAt, read_tour, tour_toml

FORMAT = 1  # the header's `format`: a file of another format is ignored, with one line
KIND = "attn-tui session"
KEEP_FILES = 20  # kept sessions beyond this are pruned, oldest first
READ_NEWEST = 5  # at most this many files are tried at launch, newest first (a folder full of them)
MAX_SESSION_BYTES = 16 * 2**20  # history beyond this is dropped, oldest first (the current scenario always fits)
MAX_STEPS = 50  # undo (and redo) steps kept: each is admitted, its trace computed, at the next launch
NAME = re.compile(r"^session-\d{8}T\d{6}Z-[0-9a-f]{8}\.toml$")  # only files of this name are read or pruned


class SessionError(ValueError):
    """A state file that cannot be used; str() is the one-line reason."""


@dataclass(frozen=True, eq=False)
class Kept:
    """What a session keeps. row: 0-based; cursor: (matrix, row, col) or None; pin: (scenario, row) or None;
    past/future: the undo and redo stacks' scenarios, oldest first. head: the HeadAt the scenario
    was shown as, or None (one head); past_heads/future_heads: one HeadAt or None per step, or ()
    when no step was a head."""

    scenario: Scenario
    row: int = 0
    cursor: tuple | None = None
    pin: tuple | None = None
    past: tuple = ()
    future: tuple = ()
    why: str = "quit"
    source: str = ""
    saved: float = field(default_factory=time.time)
    head: HeadAt | None = None
    past_heads: tuple = ()
    future_heads: tuple = ()
    tour: TourAt | None = None  # the tour's page and answers (session_tour.py)

    @property
    def edits(self) -> int:
        """The undo steps that changed the scenario (a move between heads is none)."""
        return count_edits(len(self.past), self.past_heads, self.head)

    def summary(self) -> str:
        """How many edits, c, when and why it was kept."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved))
        n, t = self.edits, self.tour
        tour = f", the tour at {t.page!r} ({len(t.answers)} answered)" if t is not None else ""
        return f"{n} edit{'' if n == 1 else 's'}, c = {self.scenario.c:.4g}{tour}, kept {when} ({self.why})"

    def describe(self) -> str:
        """One line: the name, then the summary."""
        return f"{self.scenario.title!r}: {self.summary()}"


def state_folder(env=None) -> Path:
    """The folder kept sessions live in: $XDG_STATE_HOME/attn-tui (an absolute path), else the platform's."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "attn-tui"
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "attn-tui"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "attn-tui"


def _block(text: str) -> str:
    """``text`` as a TOML multi-line basic string (backslash, quote and control characters escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch != "\n" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"""\n' + "".join(out) + '"""'


def dumps(k: Kept) -> str:
    """The state file's text; undo steps past MAX_SESSION_BYTES are left out, the oldest first."""
    head = [
        f"format = {FORMAT}",
        f"kind = {io._toml_str(KIND)}",
        f"saved = {k.saved!r}",
        f"why = {io._toml_str(k.why)}",
        f"source = {io._toml_str(k.source)}",
        f"row = {k.row}",
    ]
    if k.cursor:
        head.append(f"cursor = [{io._toml_str(k.cursor[0])}, {int(k.cursor[1])}, {int(k.cursor[2])}]")
    if k.head is not None:
        head.append(f"head = {head_toml(k.head)}")
    if k.tour is not None:
        head += tour_toml(k.tour)
    body = [f"scenario = {_block(io.dumps(k.scenario))}"]
    if k.pin is not None:
        head.append(f"pin_row = {int(k.pin[1])}")
        body.append(f"pin = {_block(io.dumps(k.pin[0]))}")
    size = sum(len(x) for x in head + body)
    # (scenario, its head) per step, so that dropping the oldest drops both
    past = [(_block(io.dumps(s)), head_toml(h)) for s, h in with_heads(k.past, k.past_heads)[-MAX_STEPS:]]
    future = [(_block(io.dumps(s)), head_toml(h)) for s, h in with_heads(k.future, k.future_heads)[-MAX_STEPS:]]
    while past and size + _size(past + future) > MAX_SESSION_BYTES:
        past.pop(0)
    while future and size + _size(past + future) > MAX_SESSION_BYTES:
        future.pop(0)
    kept_heads = (k.past_heads or (None,) * len(k.past))[len(k.past) - len(past) :] if k.past_heads else ()
    head.append(f"edits = {count_edits(len(past), kept_heads, k.head)}")
    lists = [_list(key, [x for x, _ in items]) for key, items in (("past", past), ("future", future))]
    if k.past_heads or k.future_heads:
        lists += [_list(f"{key}_heads", [h for _, h in items]) for key, items in (("past", past), ("future", future))]
    return "\n".join(head + body + lists) + "\n"


def _size(items: list) -> int:
    return sum(len(x) + len(h) for x, h in items)


def _list(key: str, items: list) -> str:
    return f"{key} = [\n" + ",\n".join(items) + ",\n]" if items else f"{key} = []"


def _scenario(text, what: str, source: str) -> Scenario:
    if not isinstance(text, str):
        raise SessionError(f"{source}: {what} is {shown(text)}, not a scenario")
    try:
        return admit(io.loads(text, f"{source} ({what})"))
    except io.ScenarioError as exc:
        raise SessionError(str(exc)) from None
    except ValueError as exc:
        raise SessionError(f"{source} ({what}): {printable(exc)}") from None


def _int(data, key, source, default=0) -> int:
    v = data.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**20:
        raise SessionError(f"{source}: {key} is {shown(v)}, not a row number")
    return v


def _header(data: dict, source: str) -> None:
    if data.get("kind") != KIND:
        raise SessionError(f"{source}: not an attn-tui session file")
    if data.get("format") != FORMAT:
        raise SessionError(
            f"{source}: from another version of attn-tui (format {shown(data.get('format'))}, "
            f"this one reads {FORMAT}); ignored"
        )
    for key in ("why", "source"):
        if not isinstance(data.get(key, ""), str):
            raise SessionError(f"{source}: {key} is {shown(data.get(key))}, not a text")
    saved = data.get("saved")
    if isinstance(saved, bool) or not isinstance(saved, (int, float)) or not 0 <= saved < 1e11:
        raise SessionError(f"{source}: saved is {shown(saved)}, not a time")


def _cursor(value, source):
    if value is None:
        return None
    ok = isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and len(value[0]) <= 8
    if not ok or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**20 for x in value[1:]):
        raise SessionError(f"{source}: cursor is {shown(value)}, not [matrix, row, column]")
    return tuple(value)


def _history(data, key, source) -> tuple:
    items = data.get(key, [])
    if not isinstance(items, list) or len(items) > MAX_STEPS:
        raise SessionError(f"{source}: {key} is {shown(items)}, not a list of at most {MAX_STEPS} scenarios")
    return tuple(_scenario(t, f"{key} step {i}", source) for i, t in enumerate(items, 1))


def loads(text: str, source: str = "<session>") -> Kept:
    """A Kept from a state file's text; SessionError (one line) for anything else."""
    import tomllib  # read when a kept session is (a launch with none does not import it: issue 32)

    source = printable(source)
    try:
        data = loads_toml(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise SessionError(f"{source}: not a readable session file ({printable(str(exc)[:80])})") from None
    _header(data, source)
    s = _scenario(data.get("scenario"), "scenario", source)
    pin = None
    if "pin" in data:
        pin = (_scenario(data["pin"], "pin", source), _int(data, "pin_row", source))
    past, future = _history(data, "past", source), _history(data, "future", source)
    try:
        head = read_head(data["head"], "head", source) if "head" in data else None
        heads = [read_step_heads(data, key, len(steps), source) for key, steps in (("past", past), ("future", future))]
        tour = read_tour(data, source)
    except ValueError as exc:  # the line naming the file and the key
        raise SessionError(str(exc)) from None
    return Kept(
        scenario=s,
        row=min(_int(data, "row", source), s.T - 1),
        cursor=_cursor(data.get("cursor"), source),
        pin=pin,
        past=past,
        future=future,
        why=printable(data.get("why", ""))[:40],
        source=printable(data.get("source", ""))[:300],
        saved=float(data["saved"]),
        head=head,
        past_heads=heads[0],
        future_heads=heads[1],
        tour=tour,
    )


def read(path) -> Kept:
    """The session in ``path``: a regular file of ours (never a symlink), at most the size a scenario may be."""
    path = Path(path)
    name = printable(path)
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise SessionError(f"{name}: cannot read ({exc.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        raise SessionError(f"{name}: a symlink; a kept session is a file of attn-tui's own, ignored")
    raw = read_capped(path, SessionError, MAX_FILE_BYTES + MAX_SESSION_BYTES, "a session file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(f"{name}: not a text (UTF-8) file; ignored") from None
    return loads(text, str(path))


def _ours(folder: Path) -> list[tuple[float, Path]]:
    """(mtime, path) of the regular files named like a kept session, newest first."""
    found = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                if NAME.match(e.name) and e.is_file(follow_symlinks=False):
                    found.append((e.stat(follow_symlinks=False).st_mtime, Path(e.path)))
    except OSError:
        return []
    return sorted(found, reverse=True)


def newest(folder: Path) -> tuple[Kept | None, Path | None, list[str]]:
    """The newest readable session in ``folder`` (of the READ_NEWEST newest files), its path, and one
    line per file refused on the way (or the one line refusing the folder: session_folder)."""
    problems = []
    try:
        if not readable(folder):
            return None, None, problems
    except FolderRefused as exc:
        return None, None, [str(exc)]
    for _, path in _ours(folder)[:READ_NEWEST]:
        try:
            return read(path), path, problems
        except SessionError as exc:
            problems.append(str(exc).splitlines()[0])
    return None, None, problems


def write(folder: Path, k: Kept, replaces: Path | None = None) -> Path:
    """Write ``k`` as a new file (0600) in ``folder`` (made or tightened 0700: session_folder.prepared),
    remove ``replaces`` (the file this session was restored from, if still a regular file of ours),
    prune beyond KEEP_FILES. FolderRefused for a folder not the user's own; OSError if unwritable."""
    import secrets  # on the first write, not at launch (issue 32)

    real = prepared(folder)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(k.saved))
    path = folder / f"session-{stamp}-{secrets.token_hex(4)}.toml"
    while os.path.lexists(path):  # a new name of our own: never write through something already there
        path = folder / f"session-{stamp}-{secrets.token_hex(4)}.toml"
    within = real if os.name == "posix" else None  # the write lands in the folder checked, even if swapped since
    write_atomic(real / path.name, dumps(k).encode("utf-8"), within=within, new_mode=FILE_MODE)
    if replaces is not None and replaces != path:
        _remove(replaces)
    prune(folder)
    return path


def _remove(path: Path) -> None:
    try:
        if NAME.match(path.name) and stat.S_ISREG(os.lstat(path).st_mode):
            path.unlink()
    except OSError:
        pass


def prune(folder: Path, keep: int = KEEP_FILES) -> None:
    """Remove the kept sessions beyond the ``keep`` newest (files of our name only, never a symlink)."""
    for _, path in _ours(folder)[keep:]:
        _remove(path)

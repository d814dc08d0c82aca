"""Scenario files: TOML in, TOML out, with errors a person can act on.

Every refusal is one line naming the file, the key and, for matrices, the row and
column (1-based). ``load``/``loads`` parse faithfully (any Scenario round-trips) and
safely (core.safe_read: no blocking on a FIFO, at most MAX_FILE_BYTES read, nesting and
object counts bounded before tomllib runs, no matrix over TOML_MAX built); ``resolve``,
the door of the CLI, --scenario and the app's open, also applies core.limits.admit.
The keys are checked by scenario_dict.from_dict; saving (``dumps``, ``save``: floats with repr(),
which round-trips bit for bit, through core.atomic) is scenario_write's, re-exported here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import labeltext
from .builtins import BUILTINS, builtin
from .limits import MAX_ARRAY_FILE_BYTES, MAX_TITLE, admit, printable, unexpected
from .safe_read import FloatRefused, loads_toml, read_capped, structure_problem
from .scenario import Scenario
from .scenario_dict import KEYS, from_dict  # noqa: F401  (re-exported: the keys a scenario file may hold)
from .scenario_write import check_savable as check_savable  # noqa: F401  (re-exported: TOML out)
from .scenario_write import dumps as dumps
from .scenario_write import save as save

if TYPE_CHECKING:
    from typing import Any


class ScenarioError(ValueError):
    """A scenario file or name that cannot be used; str() is the one-line message."""


def _parse(text: str, source: str) -> dict[Any, Any]:
    """tomllib.loads, after the structure check (safe_read.structure_problem)."""
    problem = structure_problem(text)  # before tomllib recurses or builds millions of objects
    if problem:
        raise ScenarioError(f"{source}: {problem}")
    import tomllib  # here and arrays_io in _load: a launch without a file reads none (issue 32)

    try:
        return loads_toml(text)
    except FloatRefused as exc:
        raise ScenarioError(f"{source}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{source}: not valid TOML: {printable(exc)}") from None
    except RecursionError:
        raise ScenarioError(f"{source}: nested too deeply to read") from None
    except ValueError as exc:  # an integer literal of more than 4300 digits
        raise ScenarioError(f"{source}: not valid TOML: {printable(str(exc).split(';')[0])}") from None


def loads(text: str, source: str = "<string>") -> Scenario:
    """Parse scenario TOML faithfully (a UTF-8 BOM is skipped); ScenarioError names ``source``.

    Structural rules only, so that any Scenario round-trips; ``resolve`` also applies
    the doors' limits (limits.admit)."""
    source = printable(source)
    data = _parse(text.removeprefix("\ufeff"), source)
    try:
        return from_dict(data)
    except ValueError as exc:
        raise ScenarioError(f"{source}: {printable(exc)}") from None


def load(path: str | Path, large: bool = False) -> Scenario:
    """Read a scenario file (TOML, or .npz / .safetensors arrays: core.arrays_io); ScenarioError
    names the file and what is wrong. ``large``: the report's size limits (limits.check_tokens).
    Nothing else escapes: an exception no check foresaw (MemoryError, TypeError from a hostile
    file) becomes the same one line, naming the file (the checks come first; this is the backstop)."""
    try:
        return _load(Path(path), large)
    except ScenarioError:
        raise
    except Exception as exc:  # noqa: BLE001  (the backstop: one line, never a traceback)
        raise ScenarioError(f"{printable(path)}: cannot be read ({unexpected(exc)})") from None


def _name_title(name: str) -> str:
    """An array file's name as its title: shown, without format characters, cut between clusters."""
    text = "".join(ch for ch in printable(name) if ch != labeltext.bad_format_char(ch))
    text = labeltext.cut(text, MAX_TITLE).strip()
    return text if labeltext.shows_something(text) else "untitled"


def _stored(path: Path, raw: bytes) -> int:
    """The array file's bytes on disk (reader_sizes.stored_bytes: what bounds a reader), at most those read."""
    from .reader_sizes import stored_bytes

    try:
        return min(len(raw), stored_bytes(os.stat(path)))
    except OSError:  # gone since it was read: what was read
        return len(raw)


def _load(path: Path, large: bool) -> Scenario:
    from . import arrays_io

    name = printable(path)
    if arrays_io.is_arrays_file(path):
        raw = read_capped(path, ScenarioError, MAX_ARRAY_FILE_BYTES, "an array file")
        try:
            d = arrays_io.read(raw, path.suffix, large, _stored(path, raw))
            d.setdefault("title", _name_title(path.name))  # the file, not "untitled"
            return from_dict(d)
        except ValueError as exc:
            raise ScenarioError(f"{name}: {printable(exc)}") from None
    raw = read_capped(path, ScenarioError)  # never blocks, never reads more than MAX_FILE_BYTES
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{name}: not a text (UTF-8) file; a scenario is TOML, .npz or .safetensors") from None
    if "\x00" in text:
        raise ScenarioError(f"{name}: binary data (NUL bytes); a scenario is TOML, .npz or .safetensors")
    return loads(text, str(path))


def resolve(name_or_path: Any, large: bool = False) -> Scenario:
    """A built-in by name, or a file by path: the door of the CLI, --scenario and the app's open.

    A file must also pass the limits every door applies (limits.admit: sizes, |x| <= BOUND,
    c in the knob's range, plain labels, and a trace that computes in its dtype). ``large``:
    the report's door, which takes T up to limits.MAX_T from an array file."""
    if str(name_or_path) in BUILTINS:
        return builtin(str(name_or_path))
    if not str(name_or_path).strip():  # Path("") is ".", the current folder
        raise ScenarioError(
            f"no scenario named: the name is empty (a built-in: {', '.join(BUILTINS)}, or a file's path)"
        )
    p = Path(name_or_path)
    if p.suffix == "" and not _exists(p):
        raise ScenarioError(
            f"{printable(name_or_path)}: no such file, and no built-in of that name (built-ins: {', '.join(BUILTINS)})"
        )
    s = load(p, large)
    try:
        return admit(s, large=large)
    except ValueError as exc:
        raise ScenarioError(f"{printable(p)}: {printable(exc)}") from None
    except Exception as exc:  # noqa: BLE001  (the backstop, as in load: MemoryError computing the check)
        raise ScenarioError(f"{printable(p)}: cannot be checked ({unexpected(exc)})") from None


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except (OSError, ValueError):  # ENAMETOOLONG, ELOOP, a NUL in the name: load() says which
        return True

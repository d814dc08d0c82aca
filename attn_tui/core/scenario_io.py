"""Scenario files: TOML in, TOML out, with errors a person can act on.

Every refusal is one line naming the file, the key and, for matrices, the row and
column (1-based). ``load``/``loads`` parse faithfully (any Scenario round-trips) and
safely (core.safe_read: no blocking on a FIFO, at most MAX_FILE_BYTES read, nesting and
object counts bounded before tomllib runs, no matrix over MAX_DIM built); ``resolve``,
the door of the CLI, --scenario and the app's open, also applies core.limits.admit.
Saving writes floats with repr(), which round-trips bit for bit, through core.atomic
(fsynced temporary file renamed over the target, permissions and symlinks kept).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from . import labeltext
from .atomic import write_atomic
from .builtins import BUILTINS, builtin
from .limits import MAX_ARRAY_FILE_BYTES, MAX_DIM, MAX_TITLE, admit, check_dim, printable, shown, unexpected
from .matrices import INPUTS, LABELS
from .safe_read import FloatRefused, loads_toml, read_capped, structure_problem
from .scenario import Scenario

KEYS = ("title", *LABELS, *INPUTS, "mask", "padding", "window", "fill", "c", "scaled", "dtype", "focus_row")


class ScenarioError(ValueError):
    """A scenario file or name that cannot be used; str() is the one-line message."""


def _number(key, r, c, x):
    """A matrix entry as a float; huge integers are refused, not turned into OverflowError."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"{key}: row {r}, column {c} is {shown(x)}, not a number")  # noqa: TRY004
    try:
        x = float(x)
    except OverflowError:
        raise ValueError(f"{key}: row {r}, column {c} is {shown(x)}, beyond float64; entries must be finite") from None
    if not math.isfinite(x):
        raise ValueError(f"{key}: row {r}, column {c} is {x}; entries must be finite")
    return x


def _matrix(key, value):
    if isinstance(value, np.ndarray):  # from an .npz or .safetensors file (core.arrays_io)
        from . import arrays_io

        return arrays_io.matrix(key, value)
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key}: must be a non-empty list of rows, e.g. [[1.0, 0.0], [0.0, 1.0]]")
    check_dim(key, len(value), unit=" rows")
    width = None
    rows = []
    for r, row in enumerate(value, 1):
        if not isinstance(row, list):
            raise ValueError(f"{key}: row {r} is not a list of numbers")  # noqa: TRY004
        if width is None:
            width = len(row)
            check_dim(key, width, unit=" columns")
        elif len(row) != width:
            raise ValueError(f"{key}: row {r} has {len(row)} entries, row 1 has {width} (ragged rows)")
        rows.append([_number(key, r, c, x) for c, x in enumerate(row, 1)])
    if width == 0:
        raise ValueError(f"{key}: rows are empty")
    return rows


def _labels(key, value):
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{key}: must be a list of strings")
    return tuple(value)


def _fill(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == -1e9:
        return "-1e9"
    if value in ("-1e9", "-inf", "min"):
        return value
    raise ValueError(f'fill: {value!r} is not one of -1e9, "-inf", "min"')


def from_dict(data: dict) -> Scenario:
    """Build a Scenario from parsed TOML, refusing unknown keys and wrong types."""
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown key; known keys: {', '.join(KEYS)}")
    kw = {}
    for key, value in data.items():
        if key in INPUTS:
            kw[key] = _matrix(key, value)
        elif key in LABELS:
            kw[key] = _labels(key, value)
        elif key == "fill":
            kw[key] = _fill(value)
        elif key == "padding":
            if not isinstance(value, list):
                raise ValueError(f"padding: must be a list of whole key positions, e.g. [1, 3], got {shown(value)}")
            for i, p in enumerate(value, 1):
                if isinstance(p, bool) or not isinstance(p, int):
                    raise ValueError(f"padding: entry {i} is {shown(p)}, not a whole key position (e.g. [1, 3])")  # noqa: TRY004
            kw[key] = tuple(value)
        elif key in ("title", "mask", "dtype") and not isinstance(value, str):
            raise ValueError(f"{key}: must be a string, got {shown(value)}")
        elif key in ("window", "focus_row") and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{key}: must be a whole number, got {shown(value)}")
        else:
            kw[key] = value
    if "window" in data and data.get("mask", "causal") != "window":
        raise ValueError(
            f"window: given with mask = {shown(data.get('mask', 'causal'))}; a width applies "
            'only to mask = "window" (remove window, or set mask = "window")'
        )
    if "key_tokens" in data and "X" in data and "Y" not in data:
        raise ValueError(
            "key_tokens: given without Y; with X the keys are the tokens themselves, "
            "so remove key_tokens, or add Y (one row per key token) for cross-attention"
        )
    s = Scenario(**kw)
    if isinstance(data.get("focus_row"), int) and data["focus_row"] > s.T:
        raise ValueError(f"focus_row: {data['focus_row']} is past the last query row ({s.T})")
    return s


def _parse(text: str, source: str) -> dict:
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


def load(path, large: bool = False) -> Scenario:
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


def _load(path: Path, large: bool) -> Scenario:
    from . import arrays_io

    name = printable(path)
    if arrays_io.is_arrays_file(path):
        raw = read_capped(path, ScenarioError, MAX_ARRAY_FILE_BYTES, "an array file")
        try:
            d = arrays_io.read(raw, path.suffix, large)
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


def resolve(name_or_path, large: bool = False) -> Scenario:
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


def _toml_str(s):
    """A TOML basic string: backslash, quote and every control character escaped."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    return "[" + ", ".join(_toml_value(x) for x in v) + "]"


def dumps(s: Scenario) -> str:
    """TOML text for ``s``; ``loads(dumps(s))`` gives back the same matrices bit for bit."""
    lines = [f"title = {_toml_str(s.title)}"]
    for key in LABELS:
        if getattr(s, key) and (key != "key_tokens" or s.cross or not s.projected):
            lines.append(f"{key} = {_toml_value(list(getattr(s, key)))}")
    settings = {
        "mask": s.mask,
        "fill": -1e9 if s.fill == "-1e9" else s.fill,
        "c": s.c,
        "scaled": s.scaled,
        "dtype": s.dtype,
        "padding": list(s.padding),
    }
    if s.window is not None and s.mask == "window":  # a file refuses a width with another mask
        settings["window"] = s.window
    if s.focus_row is not None:
        settings["focus_row"] = s.focus_row
    lines += [f"{k} = {_toml_value(v)}" for k, v in settings.items()]
    for key in INPUTS:
        m = getattr(s, key)
        if m is not None:
            rows = ",\n".join("  " + _toml_value([float(x) for x in row]) for row in m)
            lines.append(f"{key} = [\n{rows},\n]")
    return "\n".join(lines) + "\n"


def check_savable(s: Scenario) -> None:
    """ValueError when ``s`` has more tokens than a TOML file holds (safe_read's limits)."""
    if max(s.T, s.T_k) > MAX_DIM:
        raise ValueError(
            f"{max(s.T, s.T_k)} tokens: a TOML scenario holds at most {MAX_DIM}; keep the arrays in "
            "an .npz or .safetensors file (docs/FILES.md: Your own arrays)"
        )


def save(s: Scenario, path, overwrite=False, within=None):
    """Write ``s`` to ``path`` atomically. FileExistsError unless ``overwrite``. ``within``: the served
    folder ``path`` was checked against; the write lands below it (write_atomic)."""
    path = Path(path)
    check_savable(s)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path}: already exists")
    return write_atomic(path, dumps(s).encode("utf-8"), within=within)

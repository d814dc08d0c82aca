"""A Scenario written as scenario TOML: ``dumps`` (floats with repr(), which round-trips bit for bit)
and ``save`` (through core.atomic: a fsynced temporary file renamed over the target, permissions and
symlinks kept); ``check_savable`` refuses more tokens than a TOML file holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .atomic import write_atomic
from .limits import TOML_MAX
from .mask_kinds import MASK_KINDS
from .matrices import INPUTS, LABELS
from .scenario import Scenario

if TYPE_CHECKING:
    from typing import Any


def toml_str(s: str) -> str:
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


def _toml_value(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return toml_str(v)
    return "[" + ", ".join(_toml_value(x) for x in v) + "]"


def dumps(s: Scenario) -> str:
    """TOML text for ``s``; ``loads(dumps(s))`` gives back the same matrices bit for bit."""
    lines = [f"title = {toml_str(s.title)}"]
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
    if s.window is not None and MASK_KINDS[s.mask].windowed:  # a file refuses a width with another mask
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
    if max(s.T, s.T_k) > TOML_MAX:
        raise ValueError(
            f"{max(s.T, s.T_k)} tokens: a TOML scenario holds at most {TOML_MAX}; keep the arrays in "
            "an .npz or .safetensors file (docs/FILES.md: Your own arrays)"
        )


def save(s: Scenario, path: str | Path, overwrite: bool = False, within: Any | None = None) -> Any:
    """Write ``s`` to ``path`` atomically. FileExistsError unless ``overwrite``. ``within``: the served
    folder ``path`` was checked against; the write lands below it (write_atomic)."""
    path = Path(path)
    check_savable(s)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path}: already exists")
    return write_atomic(path, dumps(s).encode("utf-8"), within=within)

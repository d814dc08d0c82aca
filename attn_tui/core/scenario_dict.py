"""A scenario file's keys read into a Scenario: parsed TOML (or an array file's dict) in, every key
checked (matrices row by row, labels, fill, padding, the settings' types), unknown keys refused.

``from_dict`` is faithful (any Scenario round-trips through scenario_io); each refusal is a ValueError
naming the key and, for a matrix, the row and column (1-based), which scenario_io prefixes with the file.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .limits import check_dim, shown
from .mask_kinds import takes_width
from .matrices import INPUTS, LABELS
from .scenario import Scenario

if TYPE_CHECKING:
    from typing import Any

KEYS = ("title", *LABELS, *INPUTS, "mask", "padding", "window", "fill", "c", "scaled", "dtype", "focus_row")
WIDTH = "window"  # the key of a window's width (a setting; the mask kind of that name is core/mask_kinds.py's)
WHOLE = (WIDTH, "focus_row")  # the settings that hold a whole number


def _number(key: str, r: int, c: int, x: Any) -> Any:
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


def _matrix(key: str, value: Any) -> Any:
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


def _labels(key: str, value: Any) -> Any:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{key}: must be a list of strings")
    return tuple(value)


def _fill(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == -1e9:
        return "-1e9"
    if value in ("-1e9", "-inf", "min"):
        return value
    raise ValueError(f'fill: {value!r} is not one of -1e9, "-inf", "min"')


def from_dict(data: dict[Any, Any]) -> Scenario:
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
        elif key in WHOLE and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{key}: must be a whole number, got {shown(value)}")
        else:
            kw[key] = value
    if WIDTH in data and not takes_width(data.get("mask", "causal")):
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

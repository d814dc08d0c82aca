"""Scenario files of arrays: ``.npz`` (NumPy) and ``.safetensors``, named as in the TOML format.

Matrices ``X, W_Q, W_K, W_V, Y`` or ``Q, K, V`` are 2-D arrays of float16/32/64 (or integers);
labels ``tokens, key_tokens, features`` are 1-D string arrays in an .npz and JSON lists in the
safetensors metadata; settings (``mask, c, scaled, dtype, ...``) are optional, with the TOML
defaults: 0-d arrays (or a 1-D integer ``padding``) in an .npz, JSON texts in the metadata
(``"c": "1.5"``, ``"mask": "\\"causal\\""``; a bare word such as ``causal`` is read as that string).
Without ``dtype`` the scenario computes in the widest float dtype of its arrays (float64 for
integers), so float16 and float32 arrays keep their dtype.

Safety: the bytes are read once (safe_read.read_capped: no FIFO, at most MAX_ARRAY_FILE_BYTES);
every array's shape and dtype are read from its header (np.lib.format, the safetensors JSON
header) and checked against the limits before any array is read; pickles are never loaded
(allow_pickle=False, object dtypes refused from the header). What is returned is a dict shaped
like parsed TOML, which scenario_io.from_dict turns into a Scenario like any file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from . import npz_members
from .limits import MAX_T, TOML_MAX, check_tokens, printable, shown
from .matrices import INPUTS, LABELS, TOKEN_ROWS  # the one table: the matrices a file holds, those with a row per token
from .npz_members import MAX_MEMBERS
from .reader_sizes import reader_problem

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    import numpy.typing as npt

MAX_HEADER = 16 * 2**20  # a safetensors JSON header (labels of 16384 tokens fit)
MAX_HEADER_COMMAS = 4 * MAX_T + 1024  # token, key and feature labels, padding, 8 tensors' entries
ST_DTYPES = {"F16": "float16", "F32": "float32", "F64": "float64", "I8": "int8", "I16": "int16", "I32": "int32"}
ST_DTYPES |= {"I64": "int64", "U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64"}
SUFFIXES = (".npz", ".safetensors")


def is_arrays_file(path: str | Path) -> bool:
    return str(path).lower().endswith(SUFFIXES)


def check_shapes(shapes: dict[Any, Any], large: bool, stored: int | None = None) -> None:
    """Refuse, from the headers alone, a matrix that is not 2-D or is empty, and sizes beyond
    the door's limits (limits.check_tokens: T, T' with the memory they would need; widths; for an
    array file, reader_problem with its ``stored`` bytes on disk)."""
    for key, shape in shapes.items():
        if len(shape) != 2:
            raise ValueError(f"{key}: a {len(shape)}-D array of shape {tuple(shape)}; a matrix is 2-D (rows x columns)")
        if 0 in shape:
            raise ValueError(f"{key}: is empty (shape {shape[0]}x{shape[1]})")
    T = next((shapes[k][0] for k in ("X", "Q") if k in shapes), 0)
    T_k = next((shapes[k][0] for k in ("Y", "K", "X") if k in shapes), T)
    source = next((k for k in ("X", "Q") if k in shapes), "T")
    if large:  # the rule of every array-file door: what a reader of this head holds
        widths = _widths(shapes)
        problem = reader_problem(
            T, T_k, widths["d_k"], widths["d_v"], widths["d_model"], cross="Y" in shapes, stored=stored
        )
        if problem:
            raise ValueError(f"{source}: {problem}")
        for key, (rows, cols) in shapes.items():
            for n, what in ((rows, "rows"), (cols, "columns")):
                if n > MAX_T:
                    raise ValueError(f"{key}: {n} {what}; sizes are at most {MAX_T}")
        return
    check_tokens(T, T_k, large, ValueError, source=source)
    for key, (rows, cols) in shapes.items():
        for n, what in ((rows, "rows"), (cols, "columns")):
            if not (what == "rows" and key in TOKEN_ROWS) and n > TOML_MAX:
                raise ValueError(
                    f"{key}: {n} {what}; with {max(T, T_k)} tokens d_model, d_k, d_v are at most {TOML_MAX}"
                )


def _widths(shapes: dict[Any, Any]) -> dict[Any, Any]:
    """d_model, d_k, d_v of a single head's matrices from their shapes (0 where none says); an axis
    that is no width (a projection's rows) counts as one too, so every axis is judged."""
    w = {"d_model": 0, "d_k": 0, "d_v": 0}
    for key, (rows, cols) in shapes.items():
        if key in ("X", "Y"):
            w["d_model"] = max(w["d_model"], cols)
        elif key in ("W_Q", "W_K", "W_V"):
            w["d_model"] = max(w["d_model"], rows)
            w["d_v" if key == "W_V" else "d_k"] = max(w["d_v" if key == "W_V" else "d_k"], cols)
        elif key in ("Q", "K"):
            w["d_k"] = max(w["d_k"], cols)
        elif key == "V":
            w["d_v"] = max(w["d_v"], cols)
        else:  # any other matrix a file may hold: each axis a width
            w["d_model"] = max(w["d_model"], cols, 0 if key in TOKEN_ROWS else rows)
    return w


def check_dtype(key: str, dtype: npt.DTypeLike) -> None:
    """Matrices hold real numbers: float16/32/64 or integers; never objects (pickles)."""
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise ValueError(
            f"{key}: an object array (pickled Python objects); only numeric arrays are read, never pickles"
        )
    if key in INPUTS and not (dtype.kind in "iu" or dtype.name in ("float16", "float32", "float64")):
        raise ValueError(f"{key}: {dtype.name} entries; a matrix holds float16, float32, float64 or integers")


def matrix(key: str, a: np.ndarray) -> np.ndarray:
    """A matrix from a file as float64, or the TOML refusal: the first non-finite cell, 1-based."""
    a = np.asarray(a)
    check_dtype(key, a.dtype)
    if a.ndim != 2 or 0 in a.shape:
        check_shapes({key: a.shape}, True)
    bad = np.argwhere(~np.isfinite(a)) if a.dtype.kind == "f" else np.empty((0, 2), dtype=np.intp)
    if len(bad):
        r, c = (int(v) for v in bad[0])
        raise ValueError(f"{key}: row {r + 1}, column {c + 1} is {float(a[r, c])}; entries must be finite")
    return a.astype(np.float64)


def _setting(key: str, a: np.ndarray) -> Any:
    """A label list, a padding list or a 0-d setting from an .npz as the Python value TOML gives."""
    if key in LABELS or key == "padding":
        if a.ndim != 1:
            raise ValueError(f"{key}: a {a.ndim}-D array; give a 1-D array (one entry per position)")
        if key in LABELS and a.dtype.kind != "U":
            raise ValueError(f"{key}: {a.dtype.name} entries; labels are strings (a NumPy array of str)")
        return a.tolist()
    if a.ndim != 0:
        raise ValueError(f"{key}: a {a.ndim}-D array of shape {a.shape}; a setting is one value (a 0-d array)")
    return a.item()


def _widest(arrays: dict[Any, Any]) -> Any:
    floats = [a.dtype for k, a in arrays.items() if k in INPUTS and a.dtype.kind == "f"]
    return np.result_type(*floats).name if floats else "float64"


def _check_names(keys: Any) -> None:
    known = ("title", *LABELS, *INPUTS, *SETTINGS[1:])  # scenario_io.KEYS's order: the same refusal
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(f"{printable(unknown[0])}: unknown key; known keys: {', '.join(known)}")


def _finish(data: dict[Any, Any], arrays: dict[Any, Any]) -> dict[Any, Any]:
    data.setdefault("dtype", _widest(arrays))
    return data | arrays


SETTINGS = ("title", "mask", "padding", "window", "fill", "c", "scaled", "dtype", "focus_row")
JSON_HOLDS = {"c": "a JSON number", "scaled": "true or false", "padding": "a JSON list"}  # a refusal's hint


# -- .npz -------------------------------------------------------------------------------
def _dims(shapes: dict[Any, Any]) -> tuple[int, int]:
    """(T', the largest side of any matrix) from the matrices' header shapes."""
    T = next((shapes[k][0] for k in ("X", "Q") if k in shapes), 0)
    T_k = next((shapes[k][0] for k in ("Y", "K", "X") if k in shapes), T)
    return T_k, max((n for shape in shapes.values() for n in shape), default=0)


def read_npz(raw: bytes, large: bool = False, stored: int | None = None) -> dict[Any, Any]:
    """The scenario dict of the .npz bytes ``raw`` (module doc); ValueError names the key.
    Every member is checked from its zip entry and .npy header first (core.npz_members)."""
    zf = npz_members.open_zip(raw)
    heads = npz_members.headers(zf)
    for key, m in heads.items():
        check_dtype(key, m.dtype)
    _check_names(heads)
    shapes = {k: m.shape for k, m in heads.items() if k in INPUTS}
    check_shapes(shapes, large, stored)
    npz_members.check_kinds(heads, INPUTS, LABELS, *_dims(shapes))
    loaded = npz_members.read_members(zf, heads)
    data = {k: _setting(k, a) for k, a in loaded.items() if k not in INPUTS}
    return _finish(data, {k: a for k, a in loaded.items() if k in INPUTS})


# -- .safetensors -----------------------------------------------------------------------
class _Twice(ValueError):
    """A name given twice in one JSON object (json.loads would keep the last silently)."""


def _pairs(pairs: list[Any]) -> dict[Any, Any]:
    out = {}
    for k, v in pairs:
        if k in out:
            raise _Twice(f"{printable(k)}: given twice in the header (a JSON reader keeps only the last)")
        out[k] = v
    return out


def st_header_length(first8: bytes, size: int) -> int:
    """The JSON header's length from a safetensors file's first 8 bytes (little-endian), ``size``
    the file's bytes: at most MAX_HEADER and no more than the file holds after the length."""
    if size < 8 or len(first8) < 8:
        raise ValueError(f"{size} bytes, too short for a safetensors header (8 bytes of length, then JSON)")
    n = int.from_bytes(first8[:8], "little")
    if n > size - 8:
        raise ValueError(f"its header claims {n:,} bytes, the file holds {size - 8:,} after the length")
    if n > MAX_HEADER:  # a review read "claims 17,825,819 bytes, the file holds 17,825,819": the limit unsaid
        raise ValueError(f"its header is {n:,} bytes; a header is read up to {MAX_HEADER // 2**20} MiB")
    return n


def st_parse_header(text: bytes) -> dict[Any, Any]:
    """The JSON header (the bytes after the length), bounded before json parses it: at most
    MAX_HEADER_COMMAS commas (so at most that many values however small), no name twice in any
    object (json.loads would keep the last), a JSON object."""
    if text.count(b",") > MAX_HEADER_COMMAS:
        raise ValueError(f"its header holds more than {MAX_HEADER_COMMAS:,} commas; far more than a scenario has")
    try:
        header = json.loads(text.decode("utf-8"), object_pairs_hook=_pairs)
    except _Twice as exc:
        raise ValueError(str(exc)) from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("its header is not valid JSON; not a safetensors file") from None
    if not isinstance(header, dict):
        raise ValueError("its header is not a JSON object; not a safetensors file")  # noqa: TRY004
    return header


def _st_header(raw: bytes) -> dict[Any, Any]:
    """The JSON header of safetensors bytes (8-byte little-endian length, then JSON)."""
    n = st_header_length(raw[:8], len(raw))
    return st_parse_header(raw[8 : 8 + n])


def st_split(header: dict[Any, Any]) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """(tensors, metadata) of a parsed header: the metadata a JSON object, at most MAX_MEMBERS
    tensors, no name both a tensor and a metadata entry."""
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict):
        raise ValueError("__metadata__: must be a JSON object of strings")  # noqa: TRY004
    if len(header) > MAX_MEMBERS:
        raise ValueError(f"{len(header)} arrays; a scenario has at most {MAX_MEMBERS}")
    both = next((k for k in meta if k in header), None)
    if both is not None:
        raise ValueError(f"{printable(both)}: both a tensor and a metadata entry; give it once")
    return header, meta


def st_shapes(header: dict[Any, Any]) -> dict[Any, Any]:
    """{name: shape} of the tensors, each dtype a known string and each shape a list of sizes."""
    shapes = {}
    for key, info in header.items():
        dtype = info.get("dtype") if isinstance(info, dict) else info
        if not isinstance(dtype, str) or dtype not in ST_DTYPES:
            raise ValueError(f"{printable(key)}: dtype {shown(dtype)}; a matrix holds F16, F32, F64 or integers")
        shape = info.get("shape")
        if not isinstance(shape, list) or not all(type(x) is int and x >= 0 for x in shape):
            raise ValueError(f"{printable(key)}: shape {shown(shape)} is not a list of sizes")
        shapes[key] = tuple(shape)
    return shapes


def _meta_value(key: str, text: str) -> Any:
    if not isinstance(text, str):
        raise ValueError(f"{key}: metadata values are strings (JSON texts), got {shown(text)}")  # noqa: TRY004
    if key not in (*LABELS, "padding"):
        npz_members.check_setting_chars(key, len(text))  # the .npz door's bound, before json parses it
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        if key in ("title", "mask", "dtype", "fill"):
            return text  # a bare word: mask = causal
        hint = "labels: a JSON list of strings" if key in LABELS else JSON_HOLDS.get(key, "a JSON whole number")
        raise ValueError(f"{key}: {shown(text)} is not JSON ({hint})") from None


def read_safetensors(raw: bytes, large: bool = False, stored: int | None = None) -> dict[Any, Any]:
    """The scenario dict of the .safetensors bytes ``raw`` (module doc); ValueError names the key."""
    tensors, meta = st_split(_st_header(raw))
    shapes = st_shapes(tensors)
    data = {k: _meta_value(k, v) for k, v in meta.items()}
    _check_names([*shapes, *data])
    if any(k not in INPUTS for k in shapes):
        raise ValueError(f"{next(k for k in shapes if k not in INPUTS)}: labels and settings go in the metadata")
    check_shapes(shapes, large, stored)
    from safetensors.numpy import load  # imported here: only this door needs it

    try:
        arrays = load(raw)
    except Exception as exc:  # noqa: BLE001  (the library's SafetensorError, and any other refusal of the bytes)
        raise ValueError(f"not a readable safetensors file ({shown(str(exc), 80)})") from None
    return _finish(data, {k: arrays[k] for k in shapes})


def read(raw: bytes, suffix: str, large: bool = False, stored: int | None = None) -> dict[Any, Any]:
    """The scenario dict of an array file's bytes; ``stored``: its bytes on disk (reader_sizes.stored_bytes)."""
    return read_npz(raw, large, stored) if suffix.lower() == ".npz" else read_safetensors(raw, large, stored)

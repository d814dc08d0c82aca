"""The headers of a multi-head array file, and one slice of an array read from its bytes.

Nothing but headers is read when a file is opened: the safetensors JSON header (8-byte length,
then JSON), or each .npy header inside an .npz plus its small settings arrays. An array is then
read one contiguous slice at a time (one head's Q is [l, h, :, :] of a C-ordered [L, H, T, d_k]
array): a ``pread`` at its offset for safetensors and uncompressed .npz members (np.savez), a
seek inside the member for a compressed one (np.savez_compressed; slower, still one head).
Pickles are never loaded; the file must stay a regular file (a FIFO or device is refused from
its stat, before it is opened).
"""

from __future__ import annotations

import json
import math
import os
import stat
import struct
import zipfile
from dataclasses import dataclass

import numpy as np

from ..arrays_io import ST_DTYPES
from ..limits import printable, shown

MAX_HEADER = 64 * 2**20  # a safetensors JSON header: labels of 16,384 tokens and per-layer settings fit
MAX_MEMBERS = 64
SETTING_BYTES = 4 * 2**20  # an .npz settings array (tokens, kv_head, scale, mask) is read whole: at most this


@dataclass(frozen=True)
class Entry:
    """One array of the file: shape, dtype (byte order included), where its data starts."""

    name: str
    shape: tuple
    dtype: np.dtype
    offset: int | None  # absolute byte offset of element 0 (None: inside a compressed .npz member)
    member: str | None = None  # the .npz member, for a compressed one
    header_len: int = 0  # bytes of the .npy header inside the member


def check_regular(path) -> int:
    """The size of the regular file ``path``; ValueError for a missing file, a folder, a FIFO, a device."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError("no such file") from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("is a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, device, socket)")
    return st.st_size


def read_at(path, offset: int, n: int) -> bytes:
    """n bytes of ``path`` from ``offset`` (ValueError when the file is shorter: truncated)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file (a FIFO, device, socket)")
        chunks, got = [], 0
        while got < n:
            chunk = os.pread(fd, min(n - got, 2**26), offset + got)
            if not chunk:
                raise ValueError(f"truncated: {n:,} bytes at offset {offset:,} were promised, the file ends first")
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


# -- safetensors ---------------------------------------------------------------------------
def _st_entry(key, info, base: int, data_len: int) -> Entry:
    if not isinstance(info, dict) or not isinstance(info.get("dtype"), str) or info["dtype"] not in ST_DTYPES:
        what = info.get("dtype") if isinstance(info, dict) else info
        raise ValueError(f"{printable(key)}: dtype {shown(what)}; arrays hold F16, F32, F64 or integers")
    shape, offs = info.get("shape"), info.get("data_offsets")
    if not isinstance(shape, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape):
        raise ValueError(f"{printable(key)}: shape {shown(shape)} is not a list of sizes")
    if not (isinstance(offs, list) and len(offs) == 2 and all(isinstance(x, int) and x >= 0 for x in offs)):
        raise ValueError(f"{printable(key)}: data_offsets {shown(offs)} is not [begin, end]")
    dtype = np.dtype(ST_DTYPES[info["dtype"]]).newbyteorder("<")
    need = math.prod(shape) * dtype.itemsize
    if offs[1] - offs[0] != need or offs[1] > data_len:
        raise ValueError(
            f"{printable(key)}: data_offsets {offs} hold {offs[1] - offs[0]:,} bytes, its shape {tuple(shape)} needs "
            f"{need:,} (and the file's data holds {data_len:,}): truncated or inconsistent"
        )
    return Entry(str(key), tuple(shape), dtype, base + offs[0])


def safetensors_headers(path, size: int):
    """({name: Entry}, metadata {str: str}) of a .safetensors file, from its header alone."""
    if size < 8:
        raise ValueError(f"{size} bytes, too short for a safetensors header (8 bytes of length, then JSON)")
    n = int.from_bytes(read_at(path, 0, 8), "little")
    if n > min(MAX_HEADER, size - 8):
        raise ValueError(f"its header claims {n:,} bytes, the file holds {size - 8:,} after the length")
    try:
        header = json.loads(read_at(path, 8, n).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("its header is not valid JSON; not a safetensors file") from None
    if not isinstance(header, dict):
        raise ValueError("its header is not a JSON object; not a safetensors file")  # noqa: TRY004
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise ValueError("__metadata__: must be a JSON object of strings (JSON texts)")
    if len(header) > MAX_MEMBERS:
        raise ValueError(f"{len(header)} arrays; a multi-head file has a few (Q, K, V, W_O, A, M)")
    return {str(k): _st_entry(k, v, 8 + n, size - 8 - n) for k, v in header.items()}, meta


# -- .npz ------------------------------------------------------------------------------------
def _npy_header(f, key):
    try:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(f)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, SyntaxError) as exc:
        raise ValueError(f"{printable(key)}: not a readable .npy array ({shown(str(exc), 80)})") from None
    if dtype.hasobject:
        raise ValueError(f"{printable(key)}: an object array (pickled Python objects); pickles are never read")
    if fortran and len(shape) > 1:
        raise ValueError(f"{printable(key)}: stored in Fortran order; save it C-ordered (np.ascontiguousarray)")
    return tuple(shape), dtype, f.tell()


def _member_offset(path, info: zipfile.ZipInfo) -> int:
    """Where a stored member's bytes start: after its local header (30 bytes, name, extra)."""
    local = read_at(path, info.header_offset, 30)
    sig, *_, n_name, n_extra = struct.unpack("<4s5H3I2H", local)
    if sig != b"PK\x03\x04":
        raise ValueError(f"{printable(info.filename)}: a broken zip entry; not a valid .npz")
    return info.header_offset + 30 + n_name + n_extra


def npz_headers(path):
    """({name: Entry}, {setting: np.ndarray}) of an .npz: array headers; 0-d and 1-D settings read whole."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        raise ValueError("not a valid .npz (zip) file; write one with numpy.savez") from None
    with zf:
        if len(zf.infolist()) > MAX_MEMBERS:
            raise ValueError(f"{len(zf.infolist())} arrays; a multi-head file has a few (Q, K, V, W_O, A, M)")
        entries, settings = {}, {}
        for info in zf.infolist():
            key = info.filename.removesuffix(".npy")
            if not info.filename.endswith(".npy") or key in entries or key in settings:
                raise ValueError(f"{shown(info.filename)}: not one NumPy array (.npy) of its own inside the .npz")
            with zf.open(info) as f:
                shape, dtype, hlen = _npy_header(f, key)
                if len(shape) <= 1:
                    if math.prod(shape) * dtype.itemsize > SETTING_BYTES:
                        raise ValueError(f"{printable(key)}: {shape} entries; a setting or label list is smaller")
                    f.seek(0)
                    settings[key] = np.lib.format.read_array(f, allow_pickle=False)
                    continue
            stored = info.compress_type == zipfile.ZIP_STORED
            offset = _member_offset(path, info) + hlen if stored else None
            entries[key] = Entry(key, shape, dtype, offset, None if stored else info.filename, hlen)
    return entries, settings


def read_slice(path, e: Entry, index: tuple) -> np.ndarray:
    """e's array at ``index`` (leading axes, e.g. (layer, head)): a C-contiguous block, read alone."""
    inner = e.shape[len(index) :]
    count = math.prod(inner)
    start = 0
    for i, n in zip(index, e.shape):
        start = start * n + i
    start *= count
    nbytes = count * e.dtype.itemsize
    if e.offset is not None:
        raw = read_at(path, e.offset + start * e.dtype.itemsize, nbytes)
    else:
        with zipfile.ZipFile(path) as zf, zf.open(e.member) as f:
            f.seek(e.header_len + start * e.dtype.itemsize)
            raw = f.read(nbytes)
        if len(raw) != nbytes:
            raise ValueError(f"{e.name}: truncated inside the .npz")
    return np.frombuffer(raw, dtype=e.dtype).reshape(inner)

"""The headers of a multi-head array file, and one slice of an array read from its bytes.

Nothing but headers is read when a file is opened: the safetensors JSON header (8-byte length,
then JSON), or each .npy header inside an .npz plus its small settings arrays. An array is then
read one contiguous slice at a time (one head's Q is [l, h, :, :] of a C-ordered [L, H, T, d_k]
array): a ``pread`` at its offset for safetensors and uncompressed .npz members (np.savez), a
seek inside the member for a compressed one (np.savez_compressed; slower, still one head).
Pickles are never loaded; the file must stay a regular file (a FIFO or device is refused from
its stat, before it is opened).

The headers are judged by the single-head doors' own checks, shared, not copied: the safetensors
length, comma bound, duplicate names, metadata and dtype/shape checks of core.arrays_io, and the
zip end-record, encryption, compression method, .npy header size and declared-size checks of
core.npz_members; they work on header bytes and ZipInfo objects, so this reader stays lazy.
"""

from __future__ import annotations

import math
import os
import stat
import struct
import threading
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import arrays_io, npz_members
from ..arrays_io import ST_DTYPES
from ..limits import printable, shown
from .inflater import Inflater

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


@dataclass(frozen=True)
class Entry:
    """One array of the file: shape, dtype (byte order included), where its data starts."""

    name: str
    shape: tuple[Any, ...]
    dtype: np.dtype
    offset: int | None  # absolute byte offset of element 0 (None: inside a compressed .npz member)
    member: zipfile.ZipInfo | None = None  # the .npz member, for a compressed one
    header_len: int = 0  # bytes of the .npy header inside the member


def check_regular(path: str | Path) -> int:
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


def read_at(path: str | Path, offset: int, n: int) -> bytes:
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
def _st_entry(key: str, info: dict[Any, Any], shape: tuple[Any, ...], base: int, data_len: int) -> Entry:
    """An Entry of a tensor whose dtype and shape passed arrays_io.st_shapes: its data_offsets
    (which the single-head door leaves to the safetensors library, reading the whole file) hold
    exactly what its shape needs, inside the file."""
    offs = info.get("data_offsets")
    if not (isinstance(offs, list) and len(offs) == 2 and all(type(x) is int and x >= 0 for x in offs)):
        raise ValueError(f"{printable(key)}: data_offsets {shown(offs)} is not [begin, end]")
    dtype = np.dtype(ST_DTYPES[info["dtype"]]).newbyteorder("<")
    need = math.prod(shape) * dtype.itemsize
    if offs[1] - offs[0] != need or offs[1] > data_len:
        raise ValueError(
            f"{printable(key)}: data_offsets {offs} hold {offs[1] - offs[0]:,} bytes, its shape {shape} needs "
            f"{need:,} (and the file's data holds {data_len:,}): truncated or inconsistent"
        )
    return Entry(str(key), shape, dtype, base + offs[0])


def safetensors_headers(path: str | Path, size: int) -> Any:
    """({name: Entry}, metadata {str: str}) of a .safetensors file, from its header alone, judged by
    arrays_io's header checks (the single-head door's)."""
    n = arrays_io.st_header_length(read_at(path, 0, min(size, 8)), size)
    tensors, meta = arrays_io.st_split(arrays_io.st_parse_header(read_at(path, 8, n)))
    if not all(isinstance(v, str) for v in meta.values()):
        raise ValueError("__metadata__: must be a JSON object of strings (JSON texts)")
    shapes = arrays_io.st_shapes(tensors)
    return {str(k): _st_entry(k, tensors[k], shapes[k], 8 + n, size - 8 - n) for k in tensors}, meta


# -- .npz ------------------------------------------------------------------------------------
def member_offset(path: str | Path, info: zipfile.ZipInfo) -> int:
    """Where a stored member's bytes start: after its local header (30 bytes, name, extra)."""
    local = read_at(path, info.header_offset, 30)
    sig, *_, n_name, n_extra = struct.unpack("<4s5H3I2H", local)
    if sig != b"PK\x03\x04":
        raise ValueError(f"{printable(info.filename)}: a broken zip entry; not a valid .npz")
    return info.header_offset + 30 + n_name + n_extra


def open_npz(path: str | Path, size: int) -> zipfile.ZipFile:
    """The zip of the .npz at ``path``: its end record checked from the file's tail first
    (npz_members.open_zip_at), so zipfile never builds a directory of millions of entries."""
    tail = min(size, npz_members.TAIL)
    return npz_members.open_zip_at(path, read_at(path, size - tail, tail))


def npz_headers(path: str | Path, size: int) -> Any:
    """({name: Entry} of the arrays of 2 or more axes, {name: npz_members.Member} of the 0-d and
    1-D settings, not read yet: read_settings reads them once their headers are judged). Every
    member passes npz_members' checks: directory, entry, .npy header, declared size."""
    with open_npz(path, size) as zf:
        members = npz_members.headers(zf)
        npz_members.check_sizes({k: m for k, m in members.items() if len(m.shape) > 1})  # settings': when read
        entries, settings = {}, {}
        for key, m in members.items():
            if len(m.shape) <= 1:
                settings[key] = m
                continue
            if m.fortran:
                raise ValueError(f"{key}: stored in Fortran order; save it C-ordered (np.ascontiguousarray)")
            stored = m.info.compress_type == zipfile.ZIP_STORED
            offset = member_offset(path, m.info) + m.at if stored else None
            entries[key] = Entry(key, m.shape, m.dtype, offset, None if stored else m.info, m.at)
    return entries, settings


def read_settings(path: str | Path, size: int, settings: dict[Any, Any]) -> dict[Any, Any]:
    """{name: np.ndarray} of the settings members (npz_headers), each read whole (never a pickle),
    bounded by its declared size (npz_members.read_members)."""
    if not settings:
        return {}
    with open_npz(path, size) as zf:
        return npz_members.read_members(zf, settings)


class MemberStreams:
    """The compressed .npz members a reader has open, one Inflater each (inflater.py), kept between
    slices: a slice after the last one read continues where it stopped, one before it resumes from the
    decompressor's checkpoint before it. Opened afresh for every slice, head h of a member decompressed
    the h heads before it too (head 255 took 35x head 0), and a rollout's layers, read last to first,
    every layer before each. Safe across threads (the explorer's workers share a source)."""

    def __init__(self) -> None:
        self._open: dict[Any, Any] = {}  # name -> its member's Inflater
        self._last: dict[
            Any, Any
        ] = {}  # name -> (at, bytes) of the slice read last: grouped heads read a K/V head twice
        self._lock = threading.Lock()

    def read(self, path: str | Path, e: Entry, at: int, nbytes: int) -> bytes:
        with self._lock:
            last = self._last.get(e.name)
            if last is not None and last[0] == at and len(last[1]) == nbytes:
                return last[1]
            if e.name not in self._open:
                check_regular(path)  # still a regular file, as a slice opened alone checks
                m = e.member
                assert m is not None  # streams read compressed members only (read_slice: no offset)
                self._open[e.name] = Inflater(path, member_offset(path, m), m.compress_size, m.file_size)
            f = self._open[e.name]
            try:
                raw = f.read(at, nbytes)
            except BaseException:  # a broken member (damaged deflate, truncated): the next read starts afresh
                del self._open[e.name]
                f.close()
                raise
            self._last[e.name] = (at, raw)
            return raw

    def close(self) -> None:
        with self._lock:
            for f in self._open.values():
                f.close()
            self._open.clear()
            self._last.clear()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110  (at interpreter exit the modules it needs may be gone)
            pass


def read_slice(path: str | Path, e: Entry, index: tuple[Any, ...], streams: MemberStreams | None = None) -> np.ndarray:
    """e's array at ``index`` (leading axes, e.g. (layer, head)): a C-contiguous block; a compressed
    member's through ``streams`` when given (kept open between slices), else opened for this one."""
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
        if streams is not None:
            raw = streams.read(path, e, e.header_len + start * e.dtype.itemsize, nbytes)
        else:  # e.member: the ZipInfo judged at open (method, size), reopened with the same tail check
            assert e.member is not None  # no offset: inside a compressed member
            with open_npz(path, check_regular(path)) as zf, zf.open(e.member) as f:
                f.seek(e.header_len + start * e.dtype.itemsize)
                raw = f.read(nbytes)
        if len(raw) != nbytes:
            raise ValueError(f"{e.name}: truncated inside the .npz")
    return np.frombuffer(raw, dtype=e.dtype).reshape(inner)

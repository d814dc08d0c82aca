"""An .npz read header first: every member is judged from the zip's central directory and its
.npy header before one byte of its data is read or inflated.

Per member, in order: the zip entry (not encrypted, stored or deflated: the two methods
numpy.savez writes; at most MAX_MEMBERS of them), the .npy header (at most MAX_NPY_HEADER
bytes), and the uncompressed size the entry declares against the bytes the header's shape
and dtype need. arrays_io then checks every shape against the scenario's limits (matrices:
limits.check_tokens; labels, padding, settings: check_kinds below) and only then reads the
data, member by member, each read bounded by its declared size. A 390 KB .npz whose labels
inflate to 10^8 entries is refused from 100 bytes of header, not after 1.5 GiB.

Both .npz doors use these checks: the single-head one (arrays_io, on the file's bytes) and the
multi-head one (heads/file_headers, by path: only the zip's tail, its central directory and the
.npy headers are read at open; open_zip_at checks the tail's end record before zipfile parses).
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .limits import MAX_LABEL, MAX_TITLE, printable, shown

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MAX_MEMBERS = 64  # arrays in one file (a scenario has at most 19 keys)
MAX_DIRECTORY = MAX_MEMBERS * 1024  # bytes of the zip's central directory (numpy writes ~90 an entry)
MAX_NPY_HEADER = 10_000  # bytes of an .npy header (numpy writes 128; its own read limit)
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}  # what numpy.savez writes
LABEL_SLACK = 4  # a label's stored width may be 4x the limit: whitespace runs collapse (limits.clean_label)
SETTING_CHARS = LABEL_SLACK * MAX_TITLE  # a 0-d setting: a title, a word (mask, dtype, fill) or a number


@dataclass(frozen=True)
class Member:
    """One .npz member as its headers describe it."""

    key: str
    info: zipfile.ZipInfo
    shape: tuple[Any, ...]
    dtype: np.dtype
    at: int  # bytes of the .npy header: the data starts there
    fortran: bool = False  # stored in Fortran order (the multi-head reader slices C order only)


TAIL = 22 + 65535  # the end-of-central-directory record and the longest zip comment after it


def check_directory(raw: bytes) -> None:
    """Refuse, from the end-of-central-directory record, a directory zipfile would spend memory on:
    it builds one ZipInfo per entry for as many bytes as the record declares (a 128 MiB file of
    empty entries is ~3 million of them), before MAX_MEMBERS could be counted. ``raw``: the
    file's bytes, or its last TAIL bytes (the record is there)."""
    at = raw.rfind(b"PK\x05\x06", max(0, len(raw) - 22 - 65535))
    if at == -1 or len(raw) < at + 22:
        return  # not a zip: zipfile says so
    _, _, _, here, total, size, _, _ = struct.unpack_from("<4s4H2LH", raw, at)
    if max(here, total) > MAX_MEMBERS or size > MAX_DIRECTORY:
        raise ValueError(
            f"its zip directory declares {max(here, total):,} entries in {size:,} bytes; "
            f"a scenario has at most {MAX_MEMBERS} arrays"
        )


def open_zip(raw: bytes) -> zipfile.ZipFile:
    """The zip of an .npz's bytes, its directory checked first (check_directory)."""
    check_directory(raw)
    return _zip(io.BytesIO(raw))


def open_zip_at(path: str | Path, tail: bytes) -> zipfile.ZipFile:
    """The zip of the .npz at ``path`` (a regular file), read lazily by zipfile; ``tail``: the file's
    last TAIL bytes, whose end record is checked first (check_directory), as open_zip does."""
    check_directory(tail)
    return _zip(path)


def _zip(file: Any) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(file)
    except Exception:  # noqa: BLE001  (BadZipFile, and whatever a hostile central directory raises)
        raise ValueError("not a valid .npz (zip) file; write one with numpy.savez") from None


def check_entry(key: str, info: zipfile.ZipInfo) -> None:
    """Refuse, from the central directory, what zipfile would raise on (or inflate without end)."""
    if info.flag_bits & 0x1:
        raise ValueError(f"{key}: encrypted (password-protected) inside the .npz; write it with numpy.savez")
    if info.compress_type not in METHODS:
        raise ValueError(
            f"{key}: compressed with zip method {info.compress_type}; an .npz member is stored or deflated "
            "(numpy.savez, numpy.savez_compressed)"
        )


def _check_header_length(first: bytes) -> None:
    """The .npy header's length from its first 12 bytes (magic, version, 2- or 4-byte length),
    refused over MAX_NPY_HEADER before numpy reads that many bytes (version 2 and 3 allow 4 GiB)."""
    if len(first) >= 10 and first[:6] == b"\x93NUMPY":
        n = int.from_bytes(first[8:10], "little") if first[6] == 1 else int.from_bytes(first[8:12], "little")
        if n > MAX_NPY_HEADER:
            raise ValueError(f"its .npy header claims {n:,} bytes; at most {MAX_NPY_HEADER:,}")


def _npy_header(zf: zipfile.ZipFile, key: str, info: zipfile.ZipInfo) -> tuple[tuple[Any, ...], np.dtype, int, bool]:
    """(shape, dtype, header bytes, Fortran order) of one member: only its first bytes are inflated."""
    try:
        with zf.open(info) as f:
            _check_header_length(f.read(12))  # numpy reads (inflates) the whole header before its own bound
            f.seek(0)
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read(f, max_header_size=MAX_NPY_HEADER)
            return shape, np.dtype(dtype), f.tell(), bool(fortran)
    except Exception as exc:  # noqa: BLE001  (ValueError, EOFError, zlib.error, BadZipFile, SyntaxError, ...)
        raise ValueError(f"{key}: not a readable .npy array ({shown(str(exc), 80)})") from None


def _need(shape: tuple[Any, ...], dtype: np.dtype) -> int:
    n = 1
    for s in shape:
        n *= s
    return n * dtype.itemsize


def headers(zf: zipfile.ZipFile) -> dict[str, Member]:
    """{key: Member} from each member's zip entry and .npy header, read before any array."""
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ValueError(f"{len(infos)} arrays; a scenario has at most {MAX_MEMBERS}")
    heads = {}
    for info in infos:
        key = printable(info.filename.removesuffix(".npy"))
        if key in heads:
            raise ValueError(f"{key}: given twice")
        if not info.filename.endswith(".npy"):
            raise ValueError(f"{shown(info.filename)}: not a NumPy array (.npy) inside the .npz")
        check_entry(key, info)
        shape, dtype, at, fortran = _npy_header(zf, key, info)
        if dtype.hasobject:
            raise ValueError(
                f"{key}: an object array (pickled Python objects); only numeric arrays are read, never pickles"
            )
        heads[key] = Member(key, info, tuple(shape), dtype, at, fortran)
    return heads


def label_kind(m: Member, most: int) -> None:
    """A label list from its header: 1-D strings, at most ``most`` of them, each not too wide."""
    if len(m.shape) != 1:
        raise ValueError(f"{m.key}: a {len(m.shape)}-D array; give a 1-D array (one entry per position)")
    if m.dtype.kind != "U":
        raise ValueError(f"{m.key}: {m.dtype.name} entries; labels are strings (a NumPy array of str)")
    if m.shape[0] > most:
        sides = f"at most {most} rows/columns" if most else "no rows or columns (no matrix)"
        raise ValueError(f"{m.key}: {m.shape[0]:,} labels; this file's matrices have {sides}")
    width = m.dtype.itemsize // 4
    if width > LABEL_SLACK * MAX_LABEL:
        raise ValueError(f"{m.key}: labels of up to {width:,} characters; labels are at most {MAX_LABEL}")


def _padding_kind(m: Member, T_k: int) -> None:
    if len(m.shape) != 1:
        raise ValueError(f"{m.key}: a {len(m.shape)}-D array; give a 1-D array (one entry per position)")
    if m.dtype.kind not in "iu":
        raise ValueError(f"padding: {m.dtype.name} entries; padding lists whole key positions (integers)")
    if m.shape[0] > T_k:
        raise ValueError(f"padding: {m.shape[0]:,} entries for T' = {T_k} keys; each key position at most once")


def setting_kind(m: Member) -> None:
    """A 0-d setting from its header: one value, a word or a number (check_setting_chars)."""
    if len(m.shape) != 0:
        raise ValueError(f"{m.key}: a {len(m.shape)}-D array of shape {m.shape}; a setting is one value (a 0-d array)")
    check_setting_chars(m.key, m.dtype.itemsize // 4 if m.dtype.kind == "U" else m.dtype.itemsize)


def check_setting_chars(key: str, chars: int) -> None:
    """A setting (a title, a word or a number) of at most SETTING_CHARS characters: an .npz 0-d
    member from its header, a safetensors metadata text before json parses it."""
    if key == "title" and chars > SETTING_CHARS:
        raise ValueError(f"title: a string of {chars:,} characters; titles are at most {MAX_TITLE}")
    if chars > SETTING_CHARS:
        raise ValueError(f"{key}: a value of {chars:,} characters; a setting is a word or a number")


def check_kinds(heads: dict[str, Member], matrices: Any, labels: Any, T_k: int, most: int) -> None:
    """Labels (1-D str, at most ``most`` = the largest matrix side, each at most LABEL_SLACK x
    MAX_LABEL characters wide), padding (1-D integers, at most T' entries) and settings (0-d, a
    word or a number), all from the headers."""
    for key, m in heads.items():
        if key in matrices:
            continue
        if key in labels:
            label_kind(m, most)
        elif key == "padding":
            _padding_kind(m, T_k)
        else:
            setting_kind(m)


def check_sizes(heads: dict[str, Member]) -> None:
    """Each member's declared (uncompressed) size is its .npy header plus the bytes its shape and
    dtype need: no read of it goes past them, and a slice at an offset is inside it."""
    for key, m in heads.items():
        need, holds = _need(m.shape, m.dtype), m.info.file_size - m.at
        if holds != need:
            raise ValueError(
                f"{key}: not a readable .npy array (its header, shape {m.shape} of {m.dtype.name}, needs "
                f"{need:,} bytes of data; the member holds {holds:,})"
            )
        if m.info.compress_type == zipfile.ZIP_STORED and m.info.compress_size != m.info.file_size:
            raise ValueError(
                f"{key}: a broken zip entry (stored, {m.info.compress_size:,} bytes for {m.info.file_size:,})"
            )


def read_members(zf: zipfile.ZipFile, heads: dict[str, Member]) -> dict[str, np.ndarray]:
    """The arrays, each read from its own member (never pickles), once every header has passed
    and each member's declared size is the bytes its header needs (check_sizes)."""
    check_sizes(heads)
    out = {}
    for key, m in heads.items():
        try:
            with zf.open(m.info) as f:
                out[key] = np.lib.format.read_array(f, allow_pickle=False, max_header_size=MAX_NPY_HEADER)
        except Exception as exc:  # noqa: BLE001  (a bad CRC, a corrupt deflate stream, a short member)
            raise ValueError(f"{key}: not a readable .npy array ({shown(str(exc), 80)})") from None
    return out

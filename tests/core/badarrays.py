"""Issue 34's hostile array files (.npz, .safetensors) and TOML bombs, generated as bytes for
the corpus (badfiles.write_corpus): each a few KB to a few hundred KB on disk, each refused
from its headers (zip central directory, .npy header, safetensors JSON, TOML key structure)
before its data is read. ARRAYS: (name, class, file suffix, bytes, words of the refusal)."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import numpy as np

EYE = np.eye(2)


def npy(a) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, np.asarray(a), allow_pickle=False)
    return out.getvalue()


def npy_head(shape, descr: str) -> bytes:
    """An .npy header alone (no data): what a member claims, judged before reading."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


def deflated_npy_head(shape, descr: str, fill: bytes) -> bytes:
    """A member whose data is really there: ``fill`` repeated, deflated to a few KB."""
    head = npy_head(shape, descr)
    n = int(np.prod(shape)) * np.dtype(descr).itemsize
    return head + fill * (n // len(fill))


def npz(members: dict, method=zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return out.getvalue()


def qk(**more) -> bytes:
    return npz({"Q.npy": npy(EYE), "K.npy": npy(EYE), **more})


def patched(raw: bytes, local_at: int, central_at: int, fmt: str, value: int) -> bytes:
    """``raw`` with one field of every local and central zip header set to ``value``
    (flag bits: 6 and 8, compression method: 8 and 10, as in APPNOTE 4.3.7 and 4.3.12)."""
    b = bytearray(raw)
    for sig, at in ((b"PK\x03\x04", local_at), (b"PK\x01\x02", central_at)):
        i = b.find(sig)
        while i != -1:
            struct.pack_into(fmt, b, i + at, value)
            i = b.find(sig, i + 4)
    return bytes(b)


def safetensors(header: dict | str, data: bytes = b"") -> bytes:
    text = (header if isinstance(header, str) else json.dumps(header)).encode()
    return len(text).to_bytes(8, "little") + text + data


def st_qk(q: dict | None = None, meta: dict | None = None) -> dict:
    head = {
        "Q": {"dtype": "F64", "shape": [2, 2], "data_offsets": [0, 32]},
        "K": {"dtype": "F64", "shape": [2, 2], "data_offsets": [32, 64]},
    }
    if q is not None:
        head["Q"] = q
    if meta is not None:
        head["__metadata__"] = meta
    return head


DATA = EYE.tobytes() * 2
TWICE = json.dumps(st_qk())[:-1] + ', "Q": {"dtype": "F64", "shape": [2, 2], "data_offsets": [0, 32]}}'
ENCRYPTED = patched(qk(), 6, 8, "<H", 0x1)
METHOD_99 = patched(qk(), 8, 10, "<H", 99)

ARRAYS = [
    # -- crashes that lost the session (TypeError, MemoryError) -------------------------------
    ("safetensors dtype a list", "safetensors header", ".safetensors",
     safetensors(st_qk({"dtype": ["F64"], "shape": [2, 2], "data_offsets": [0, 32]}), DATA), ["Q: dtype ['F64']"]),
    ("safetensors dtype an object", "safetensors header", ".safetensors",
     safetensors(st_qk({"dtype": {"a": 1}, "shape": [2, 2], "data_offsets": [0, 32]}), DATA), ["Q: dtype {'a': 1}"]),
    ("npz 2**40 labels", "array headers", ".npz", qk(**{"tokens.npy": npy_head((2**40,), "<U1")}),
     ["tokens: 1,099,511,627,776 labels", "at most 2 rows/columns"]),
    # -- tracebacks at every door ----------------------------------------------------------
    ("npz encrypted members", "zip entries", ".npz", ENCRYPTED, ["Q: encrypted"]),
    ("npz compression method 99", "zip entries", ".npz", METHOD_99, ["Q: compressed with zip method 99"]),
    # -- small files that took gigabytes -------------------------------------------------
    ("npz tokens inflate to 10**7", "array headers", ".npz",
     qk(**{"tokens.npy": deflated_npy_head((10**7,), "<U1", b"a\0\0\0")}), ["tokens: 10,000,000 labels"]),
    ("npz title of 5 M characters", "array headers", ".npz",
     qk(**{"title.npy": deflated_npy_head((), "<U5000000", b"a\0\0\0")}),
     ["title: a string of 5,000,000 characters", "200"]),
    ("npz padding of 10**6 ones", "array headers", ".npz",
     qk(**{"padding.npy": deflated_npy_head((10**6,), "<i8", (1).to_bytes(8, "little"))}),
     ["padding: 1,000,000 entries", "T' = 2"]),
    ("npz labels 1000 characters wide", "array headers", ".npz",
     qk(**{"tokens.npy": npy(np.array(["a" * 1000, "b"]))}), ["tokens: labels of up to 1,000 characters", "24"]),
    ("npz mask 1-D", "array headers", ".npz", qk(**{"mask.npy": npy(np.array(["none", "x"]))}),
     ["mask: a 1-D array", "0-d"]),
    ("npz padding floats", "array headers", ".npz", qk(**{"padding.npy": npy(np.array([1.0]))}),
     ["padding: float64 entries"]),
    ("npz member longer than its header", "array headers", ".npz",
     npz({"Q.npy": npy(EYE) + b"\0" * 4096, "K.npy": npy(EYE)}), ["Q: not a readable .npy array", "needs 32 bytes"]),
    ("npz .npy header of 1 MB", "array headers", ".npz",
     npz({"Q.npy": b"\x93NUMPY\x02\x00" + (2**20).to_bytes(4, "little") + b" " * 2**20, "K.npy": npy(EYE)}),
     ["Q: not a readable .npy array"]),
    ("npz bidi label", "format characters", ".npz", qk(**{"tokens.npy": npy(np.array(["a\u202eb", "c"]))}),
     ["tokens: label 1", "U+202E"]),
    ("npz directory of 100 entries", "zip entries", ".npz", npz({f"{i}": b"" for i in range(100)}),
     ["its zip directory declares 100 entries", "at most 64 arrays"]),
    # -- safetensors header ---------------------------------------------------------------
    ("safetensors Q twice", "safetensors header", ".safetensors", safetensors(TWICE, DATA), ["Q: given twice"]),
    ("safetensors Q tensor and metadata", "safetensors header", ".safetensors",
     safetensors(st_qk(meta={"Q": "[[1.0]]"}), DATA), ["Q: both a tensor and a metadata entry"]),
    ("safetensors metadata name twice", "safetensors header", ".safetensors",
     safetensors(json.dumps(st_qk())[:-1] + ', "__metadata__": {"c": "1.0", "c": "2.0"}}', DATA), ["c: given twice"]),
    ("safetensors comma bomb", "safetensors header", ".safetensors",
     safetensors(st_qk(meta={"padding": "[" + "1," * 200_000 + "1]"}), DATA), ["commas"]),
    ("safetensors shape of booleans", "safetensors header", ".safetensors",
     safetensors(st_qk({"dtype": "F64", "shape": [True, 2], "data_offsets": [0, 32]}), DATA), ["Q: shape [True, 2]"]),
]  # fmt: skip

# -- TOML bounded before tomllib, and label text (every door: TOML here, .npz above) ----------
QK = "Q = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\n"
TOML = [
    ("dotted key of 20000 parts", "toml bombs", ".".join(f"k{i}" for i in range(20_000)) + " = 1\n" + QK,
     ["line 1", "dotted", "16"]),
    ("dotted table header", "toml bombs", QK + "[" + ".".join(f"k{i}" for i in range(5000)) + "]\n",
     ["line 3", "dotted"]),
    ("dotted quoted parts", "toml bombs", QK + ".".join(f'"k{i}"' for i in range(5000)) + " = 1\n", ["dotted"]),
    ("many dotted keys", "toml bombs", "".join(f"x{j}.a.b.c.d.e.f.g.h.i = 1\n" for j in range(2000)) + QK,
     ["dotted key parts", "4,096"]),
    ("bidi override in a label", "format characters", QK + 'tokens = ["abc\\u202egpj.exe", "b"]\n',
     ["tokens: label 1", "U+202E"]),
    ("bidi isolate in the title", "format characters", 'title = "x\\u2067y"\n' + QK, ["title", "U+2067"]),
    ("zero-width label", "format characters", QK + 'tokens = ["a", "\\u200b\\u200b"]\n', ["tokens: label 2", "U+200B"]),
    ("combining marks only", "format characters", QK + 'tokens = ["\\u0301\\u0301", "b"]\n',
     ["tokens: label 1", "no visible character"]),
    ("hangul filler label", "format characters", QK + 'tokens = ["a", "\\u3164"]\n',
     ["tokens: label 2", "no visible character"]),
]  # fmt: skip

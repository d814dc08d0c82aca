"""Hostile multi-head files ([L, H, T, d] arrays, core.heads.multihead_io), generated for
tests/core/test_heads_hostile.py: ``write_heads(folder)`` writes each and returns one HeadCase
per file: its path, the words of the multi-head doors' refusal (`heads`, `heads --json`,
`report --layer 0 --head 0`) and the words of the single-head door's (scenario_io.resolve,
which refuses every multi-head file: its Q has 4 axes). Each file is a few KB to a few hundred KB.
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.core.badarrays import npy, npy_head, patched, safetensors

L, H, H_KV, T, D = 2, 2, 1, 3, 2
SHAPES = {"Q": [L, H, T, D], "K": [L, H_KV, T, D], "V": [L, H_KV, T, D]}


@dataclass(frozen=True)
class HeadCase:
    name: str
    path: Path
    words: tuple  # in the multi-head doors' refusal
    single: tuple  # in the single-head door's (resolve)


def qkv(nan=False) -> dict:
    rng = np.random.default_rng(0)
    a = {k: rng.normal(size=s) for k, s in SHAPES.items()}
    if nan:
        a["Q"][0, 0, 0, 0] = np.nan
    return a


def members(arrays: dict, method=zipfile.ZIP_STORED, extra=()) -> bytes:
    """An .npz of ``arrays`` (np.savez's layout), then the (name, bytes) pairs of ``extra``."""
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a name given twice: that is the point
        with zipfile.ZipFile(out, "w", compression=method) as zf:
            for k, a in arrays.items():
                zf.writestr(f"{k}.npy", npy(np.asarray(a)))
            for name, raw in extra:
                zf.writestr(name, raw)
    return out.getvalue()


def st_header(q_dtype="F64", meta=None) -> dict:
    head, at = {}, 0
    for k, s in SHAPES.items():
        n = int(np.prod(s)) * 8
        head[k] = {"dtype": "F64", "shape": s, "data_offsets": [at, at + n]}
        at += n
    head["Q"]["dtype"] = q_dtype
    if meta is not None:
        head["__metadata__"] = meta
    return head


DATA = b"".join(a.astype("<f8").tobytes() for a in qkv().values())


def st(q_dtype="F64", meta=None) -> bytes:
    return safetensors(st_header(q_dtype, meta), DATA)


def st_twice() -> bytes:
    text = json.dumps(st_header())
    return safetensors(text[:-1] + ', "Q": ' + json.dumps(st_header()["Q"]) + "}", DATA)


def tokens_bomb(path: Path, n: int = 10**8) -> None:
    """Q, K, V stored, then tokens.npy: a (n,) <U1 array whose n x 4 bytes are really there,
    deflated as they are written (a few MB at a time) to about n / 250 bytes on disk."""
    with zipfile.ZipFile(path, "w") as zf:
        for k, a in qkv().items():
            zf.writestr(f"{k}.npy", npy(a))
        info = zipfile.ZipInfo("tokens.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        head = npy_head((n,), "<U1")
        with zf.open(info, "w", force_zip64=True) as f:
            f.write(head)
            chunk = b"a\0\0\0" * 2**20
            for _ in range(n // 2**20):
                f.write(chunk)
            f.write(b"a\0\0\0" * (n % 2**20))


def header_bomb(path: Path, n: int = 10**8) -> None:
    """Q.npy a version-2 .npy whose header claims n bytes and has them (spaces), deflated to about
    n / 1000 bytes; numpy reads a header whole before its own size limit."""
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo("Q.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as f:
            f.write(b"\x93NUMPY\x02\x00" + n.to_bytes(4, "little"))
            for _ in range(n // 2**22):
                f.write(b" " * 2**22)
            f.write(b" " * (n % 2**22))
        for k, a in qkv().items():
            if k != "Q":
                zf.writestr(f"{k}.npy", npy(a))


def write_heads(folder) -> list[HeadCase]:
    folder = Path(folder)
    four_d = ("Q: a 4-D array", "a matrix is 2-D")
    files = [  # (name, suffix, bytes or a writer, words, single-head words)
        ("Q dtype a list", ".safetensors", st(["F64"]), ["Q: dtype ['F64']"], ["Q: dtype ['F64']"]),
        ("Q dtype an object", ".safetensors", st({"a": 1}), ["Q: dtype {'a': 1}"], ["Q: dtype {'a': 1}"]),
        ("Q twice in the JSON", ".safetensors", st_twice(), ["Q: given twice"], ["Q: given twice"]),
        (
            "Q tensor and metadata",
            ".safetensors",
            st(meta={"Q": "1"}),
            ["Q: both a tensor and a metadata entry"],
            ["Q: both a tensor and a metadata entry"],
        ),
        (
            "tokens comma bomb",
            ".safetensors",
            st(meta={"tokens": "[" + "1," * 2_000_000 + "1]"}),
            ["commas"],
            ["commas"],
        ),
        (
            "Q twice in the zip",
            ".npz",
            members(qkv(), extra=[("Q.npy", npy(qkv()["Q"]))]),
            ["Q: given twice"],
            ["Q: given twice"],
        ),
        ("encrypted members", ".npz", patched(members(qkv()), 6, 8, "<H", 0x1), ["Q: encrypted"], ["Q: encrypted"]),
        (
            "compression method 99",
            ".npz",
            patched(members(qkv(), zipfile.ZIP_DEFLATED), 8, 10, "<H", 99),
            ["Q: compressed with zip method 99"],
            ["Q: compressed with zip method 99"],
        ),
        (
            "zip directory of 50000 entries",
            ".npz",
            members(qkv(), extra=[(f"{i}", b"") for i in range(50_000)]),
            ["its zip directory declares 50,003 entries"],
            ["its zip directory declares 50,003 entries"],
        ),
        (
            "kv_head past H_kv (npz)",
            ".npz",
            members(qkv() | {"kv_head": np.array([0, 5])}),
            ["kv_head: head 1 maps to 5", "0..0"],
            ["kv_head: unknown key"],
        ),
        (
            "kv_head past H_kv (safetensors)",
            ".safetensors",
            st(meta={"kv_head": "[0, 5]"}),
            ["kv_head: head 1 maps to 5"],
            ["kv_head: unknown key"],
        ),
        (
            "scale for 3 layers of 2",
            ".npz",
            members(qkv() | {"scale": np.array([1.0, 2.0, 3.0])}),
            ["scale: 3 values for 2 layers"],
            ["scale: unknown key"],
        ),
        (
            "mask for 3 layers of 2",
            ".safetensors",
            st(meta={"mask": '["causal", "none", "none"]'}),
            ["mask: 3 values for 2 layers"],
            four_d,
        ),
        (
            ".npy header of 10**8 bytes",
            ".npz",
            header_bomb,
            ["Q: not a readable .npy array", "claims 100,000,000 bytes"],
            ["Q: not a readable .npy array", "claims 100,000,000 bytes"],
        ),
        (
            "byte_level with a token of no byte",
            ".safetensors",
            st(meta={"raw_tokens": '["a", "\u2581b", "c"]', "provenance": '{"byte_level": true}'}),
            ["raw_tokens[1]: '\u2581b' is not a byte-level token"],
            ["raw_tokens: unknown key"],
        ),
        ("tokens inflate to 10**8", ".npz", tokens_bomb, ["tokens: 100,000,000 labels"], four_d),
        ("NaN entry (npz)", ".npz", members(qkv(nan=True)), ["Q: layer 0, head 0, row 1, column 1 is nan"], four_d),
        (
            "NaN entry (compressed npz)",
            ".npz",
            members(qkv(nan=True), zipfile.ZIP_DEFLATED),
            ["Q: layer 0, head 0, row 1, column 1 is nan"],
            four_d,
        ),
    ]
    cases = []
    for i, (name, suffix, raw, words, single) in enumerate(files):
        p = folder / f"h{i:02d}{suffix}"
        if callable(raw):
            raw(p)
        else:
            p.write_bytes(raw)
        cases.append(HeadCase(name, p, tuple(words), tuple(single)))
    return cases


def sparse_heads(path, L: int, H: int, T: int, d: int = 1):
    """(issue 52) A causal multi-head .safetensors whose Q, K, V (L, H, T, d) float16 are a hole in the file:
    all zeros, no disk used (the header alone is written)."""
    head, at = {}, 0
    for name in ("Q", "K", "V"):
        n = L * H * T * d * 2
        head[name] = {"dtype": "F16", "shape": [L, H, T, d], "data_offsets": [at, at + n]}
        at += n
    head["__metadata__"] = {"mask": json.dumps("causal")}
    text = json.dumps(head).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        f.truncate(8 + len(text) + at)
    return path

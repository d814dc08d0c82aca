"""core.arrays_io's refusals word for word and its edges, written to kill the mutants of
core/arrays_io.py (scripts/mutation.sh): sizes judged from the headers (which matrix gives T and
T', the widths at the limit, the report door's wider limit), matrix() on its own, .npz members
(count, duplicates, names, .npy version 2), the safetensors header's length and JSON, metadata
bare words, tensor entries, and the quoted library errors cut at 80 characters. Each expected
message is written from the format's rule and the sizes used here."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from safetensors.numpy import load, save

from attn_tui.core import arrays_io as aio
from attn_tui.core.limits import gib

HERE = "(`attn-tui --scenario FILE` and `attn-tui report --scenario FILE` take up to 16384)"


def need(T, T_k):
    return f"its T x T' matrices would need {gib(5 * 8 * T * T_k)} (5 of {T} x {T_k} in float64)"


def refused(fn, *args):
    with pytest.raises(ValueError) as err:
        fn(*args)
    return str(err.value)


def cut80(text):
    r = repr(text)
    return r if len(r) <= 80 else r[:77] + "..."


@pytest.mark.parametrize(
    ("shapes", "large", "words"),
    [
        ({"X": (600, 3)}, False, f"X: T = 600 tokens; at most 512 here {HERE}; {need(600, 600)}"),
        ({"Q": (600, 4)}, False, f"Q: T = 600 tokens; at most 512 here {HERE}; {need(600, 600)}"),
        ({"K": (600, 4)}, False, f"T: T' = 600 tokens; at most 512 here {HERE}; {need(0, 600)}"),
        ({"X": (5, 3), "Y": (600, 3)}, False, f"X: T' = 600 tokens; at most 512 here {HERE}; {need(5, 600)}"),
        ({"Q": (5, 4), "K": (600, 4)}, False, f"Q: T' = 600 tokens; at most 512 here {HERE}; {need(5, 600)}"),
        (
            {"Q": (16384, 8193), "K": (16384, 8193)},
            True,
            "Q: Q, K, V of a head: 2.0 GiB in float64 at 16,384 tokens (d_k 8193, d_v 0, d_model 0); "
            "a reader holds at most 2.0 GiB at once",
        ),
        (
            {"X": (16384, 8193), "Y": (16384, 8193), "W_Q": (8193, 4)},
            True,
            "X: X, Y, W_Q, W_K, W_V: 2.0 GiB in float64 at 16,384 tokens (d_k 4, d_v 0, d_model 8193); "
            "a reader holds at most 2.0 GiB at once",
        ),
        ({"Q": (5, 4), "K": (5, 4), "V": (20000, 2)}, True, "V: 20000 rows; sizes are at most 16384"),
    ],
)
def test_sizes_from_the_headers_name_the_matrix_and_the_limit(shapes, large, words):
    assert refused(aio.check_shapes, shapes, large) == words


def test_sizes_at_the_limits_pass():
    aio.check_shapes({"Q": (600, 300), "K": (600, 300)}, True)  # refused by a width limit before issue 48
    aio.check_shapes({"Q": (16384, 512), "K": (16384, 512), "V": (16384, 512)}, True)  # a real head, 192 MiB
    aio.check_shapes({"X": (16384, 16000), "W_Q": (16000, 128)}, True)  # X of a wide model, 2 GiB
    aio.check_shapes({"Q": (5, 4), "K": (5, 4), "V": (16384, 2)}, True)
    aio.check_shapes({"Q": (5, 512), "K": (5, 512)}, False)


def test_matrix_on_its_own():
    assert refused(aio.matrix, "Q", np.ones(3)) == "Q: a 1-D array of shape (3,); a matrix is 2-D (rows x columns)"
    assert refused(aio.matrix, "Q", np.ones((0, 2))) == "Q: is empty (shape 0x2)"
    assert refused(aio.matrix, "K", np.ones((2, 2), complex)).startswith("K: complex128 entries; a matrix holds")
    assert refused(aio.matrix, "V", np.array([[1.0, np.nan]])) == "V: row 1, column 2 is nan; entries must be finite"
    row = aio.matrix("Q", np.ones((1, 600), dtype=np.float32))  # one row, wide: no size check here
    assert row.dtype == np.float64 and row.shape == (1, 600)


def npz_bytes(members: dict) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return raw.getvalue()


def npy(a, version=(1, 0)):
    f = io.BytesIO()
    np.lib.format.write_array(f, np.asarray(a), version=version)
    return f.getvalue()


def test_npz_members():
    many = {f"a{i}.npy": npy(np.eye(1)) for i in range(64)}
    assert refused(aio.read_npz, npz_bytes(many)).startswith("a0: unknown key")  # 64 members: counted, then named
    over = npz_bytes({**many, "b.npy": npy(np.eye(1))})
    assert refused(aio.read_npz, over).startswith(
        "its zip directory declares 65 entries in "
    )  # issue 34: before zipfile
    eocd = over.rfind(b"PK\x05\x06")  # a directory whose end record understates its entries: zipfile reads them all
    lying = over[: eocd + 8] + (2).to_bytes(2, "little") * 2 + over[eocd + 12 :]
    assert refused(aio.read_npz, lying) == "65 arrays; a scenario has at most 64"
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as zf, pytest.warns(UserWarning):
        zf.writestr("Q.npy", npy(np.eye(2)))
        zf.writestr("Q.npy", npy(np.eye(2)))
    assert refused(aio.read_npz, raw.getvalue()) == "Q: given twice"
    assert (
        refused(aio.read_npz, npz_bytes({"notes.txt": b"hi"}))
        == "'notes.txt': not a NumPy array (.npy) inside the .npz"
    )
    bad = b"\x80\x04\x95" + bytes(range(40))
    try:
        np.lib.format.read_magic(io.BytesIO(bad))
    except ValueError as exc:
        words = f"Q: not a readable .npy array ({cut80(str(exc))})"
    assert refused(aio.read_npz, npz_bytes({"Q.npy": bad})) == words
    d = aio.read_npz(npz_bytes({"Q.npy": npy(np.eye(2), (2, 0)), "K.npy": npy(np.eye(2), (2, 0))}))
    np.testing.assert_array_equal(d["Q"], np.eye(2))


def test_npz_and_safetensors_take_600_tokens_only_at_the_report_door():
    a = {k: np.ones((600, 2)) for k in "QK"}
    f = io.BytesIO()
    np.savez(f, **a)
    for raw, suffix, reader in ((f.getvalue(), ".npz", aio.read_npz), (save(a), ".safetensors", aio.read_safetensors)):
        assert refused(reader, raw).startswith("Q: T = 600 tokens; at most 512 here")
        assert refused(aio.read, raw, suffix).startswith("Q: T = 600 tokens; at most 512 here")
        assert reader(raw, True)["Q"].shape == aio.read(raw, suffix, True)["K"].shape == (600, 2)


def test_a_short_npz_body_is_refused_from_its_sizes_before_reading():
    """Issue 34: the member's declared size against its header's shape, before its data is read."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False, "shape": (3, 4)})
    raw = npz_bytes({"Q.npy": head.getvalue() + b"\x00" * 8, "K.npy": npy(np.eye(4)[:3])})
    assert refused(aio.read_npz, raw) == (
        "Q: not a readable .npy array (its header, shape (3, 4) of float64, needs 96 bytes of data; the member holds 8)"
    )


def header(obj, extra=b"") -> bytes:
    h = json.dumps(obj).encode()
    return len(h).to_bytes(8, "little") + h + extra


def test_safetensors_header_length_and_json():
    assert aio._st_header(header({})) == {}  # the header fills the file exactly
    assert refused(aio._st_header, (0).to_bytes(8, "little")) == "its header is not valid JSON; not a safetensors file"
    h = b'{"a": 1}'
    assert refused(aio._st_header, (len(h) + 1).to_bytes(8, "little") + h) == (
        f"its header claims {len(h) + 1:,} bytes, the file holds {len(h):,} after the length"
    )
    assert refused(aio._st_header, header([1])) == "its header is not a JSON object; not a safetensors file"
    # a header past the limit that the file does hold: the limit is said (it read "claims n, holds n")
    n = aio.MAX_HEADER + 3
    assert refused(aio.st_header_length, n.to_bytes(8, "little"), n + 8) == (
        f"its header is {n:,} bytes; a header is read up to {aio.MAX_HEADER // 2**20} MiB"
    )


def test_metadata_values():
    assert refused(aio._meta_value, "c", 1.5) == "c: metadata values are strings (JSON texts), got 1.5"
    for key, word in (("title", "my title"), ("dtype", "float16"), ("fill", "min"), ("mask", "causal")):
        assert aio._meta_value(key, word) == word  # a bare word
    assert refused(aio._meta_value, "c", "abc") == "c: 'abc' is not JSON (a JSON number)"
    assert (
        refused(aio._setting, "tokens", np.array([["a"]]))
        == "tokens: a 2-D array; give a 1-D array (one entry per position)"
    )


def entry(shape=(1, 1), dtype="F64"):
    return {"dtype": dtype, "shape": shape, "data_offsets": [0, 8]}


@pytest.mark.parametrize(
    ("obj", "words"),
    [
        ({"__metadata__": [1], "Q": entry()}, "__metadata__: must be a JSON object of strings"),
        ({f"a{i}": entry() for i in range(65)}, "65 arrays; a scenario has at most 64"),
        ({f"a{i}": entry() for i in range(64)}, "a0: unknown key; known keys: title, tokens"),
        ({"Q": 5}, "Q: dtype 5; a matrix holds F16, F32, F64 or integers"),
        ({"Q": entry(5)}, "Q: shape 5 is not a list of sizes"),
        ({"Q": entry([-1, 2])}, "Q: shape [-1, 2] is not a list of sizes"),
        ({"Q": entry(["1", 2])}, "Q: shape ['1', 2] is not a list of sizes"),
        ({"Q": entry([0, 2]), "K": entry()}, "Q: is empty (shape 0x2)"),
        ({"Q": entry(), "tokens": entry()}, "tokens: labels and settings go in the metadata"),
    ],
)
def test_safetensors_entries_are_refused_in_words(obj, words):
    assert refused(aio.read_safetensors, header(obj, bytes(8))).startswith(words)


def test_an_unreadable_safetensors_body_quotes_the_librarys_words():
    raw = header({"Q": {"dtype": "F64", "shape": [2, 2], "data_offsets": [0, 32]}, "K": entry()}, bytes(8))
    try:
        load(raw)
    except Exception as exc:  # noqa: BLE001  (safetensors' own error class)
        words = f"not a readable safetensors file ({cut80(str(exc))})"
    assert refused(aio.read_safetensors, raw) == words


def test_a_long_library_error_is_cut_at_80_characters():
    raw = header({"Q": {"dtype": "F64", "shape": [2, 2]}}, bytes(32))  # no data_offsets
    try:
        load(raw)
    except Exception as exc:  # noqa: BLE001
        assert len(repr(str(exc))) > 81  # the test's point: the cut shows
        words = f"not a readable safetensors file ({cut80(str(exc))})"
    assert refused(aio.read_safetensors, raw) == words

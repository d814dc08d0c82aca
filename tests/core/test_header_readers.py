"""Boundaries of the header-first readers (core/npz_members.py, arrays_io's safetensors header,
core/labeltext.py): each limit accepted at its value and refused one past it, so that an
off-by-one or a dropped check fails here."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from attn_tui.core import arrays_io as aio
from attn_tui.core import labeltext, npz_members
from attn_tui.core.limits import MAX_LABEL, MAX_T, MAX_TITLE
from tests.core.badarrays import EYE, npy, npy_head, npz, patched, qk, safetensors, st_qk

DATA = EYE.tobytes() * 2


def refused(raw, reader=aio.read_npz) -> str:
    with pytest.raises(ValueError) as err:
        reader(raw, True)
    return str(err.value)


def test_stored_and_deflated_members_are_read_every_other_method_refused():
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        assert aio.read_npz(npz({"Q.npy": npy(EYE), "K.npy": npy(EYE)}, method))["Q"].shape == (2, 2)
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        raw = npz({"Q.npy": npy(EYE), "K.npy": npy(EYE)}, method)
        assert refused(raw).startswith(f"Q: compressed with zip method {method}; an .npz member is stored or deflated")


def test_the_encryption_flag_alone_is_refused_not_other_flags():
    assert refused(patched(qk(), 6, 8, "<H", 0x1)).startswith("Q: encrypted (password-protected)")
    assert aio.read_npz(patched(qk(), 6, 8, "<H", 0x800), True)["Q"].shape == (2, 2)  # the UTF-8 names flag


@pytest.mark.parametrize(("extra", "ok"), [(0, True), (1, False), (-1, False)])
def test_a_member_holds_exactly_what_its_header_needs(extra, ok):
    body = npy(EYE)
    raw = npz({"Q.npy": body + b"\0" * extra if extra >= 0 else body[:-1], "K.npy": npy(EYE)})
    if ok:
        assert aio.read_npz(raw)["Q"].shape == (2, 2)
    else:
        assert refused(raw).startswith("Q: not a readable .npy array (its header, shape (2, 2) of float64, needs 32")


@pytest.mark.parametrize(("n", "ok"), [(2, True), (3, False)])
def test_labels_at_most_the_largest_matrix_side(n, ok):
    raw = qk(**{"tokens.npy": npy_head((n,), "<U1")})
    if ok:  # passes the header checks; the body is missing, so the size check speaks
        assert "tokens: not a readable .npy array" in refused(raw)
    else:
        assert refused(raw) == f"tokens: {n:,} labels; this file's matrices have at most 2 rows/columns"


@pytest.mark.parametrize(("width", "ok"), [(npz_members.LABEL_SLACK * MAX_LABEL, True), (4 * MAX_LABEL + 1, False)])
def test_labels_at_most_4x_the_label_limit_wide(width, ok):
    raw = qk(**{"tokens.npy": npy(np.array(["a", "b"], dtype=f"<U{width}"))})
    if ok:
        assert aio.read_npz(raw)["tokens"] == ["a", "b"]
    else:
        assert refused(raw) == f"tokens: labels of up to {width} characters; labels are at most {MAX_LABEL}"


@pytest.mark.parametrize(("n", "ok"), [(2, True), (3, False)])
def test_padding_at_most_t_prime_entries(n, ok):
    raw = qk(**{"padding.npy": npy(np.ones(n, dtype=np.int64))})
    if ok:
        assert aio.read_npz(raw)["padding"] == [1, 1]
    else:
        assert refused(raw) == "padding: 3 entries for T' = 2 keys; each key position at most once"


@pytest.mark.parametrize(("chars", "ok"), [(npz_members.SETTING_CHARS, True), (npz_members.SETTING_CHARS + 1, False)])
def test_a_title_setting_at_most_setting_chars_in_both_formats(chars, ok):
    title = "x" * chars
    raw_npz = qk(**{"title.npy": npy(np.array(title))})
    raw_st = safetensors(st_qk(meta={"title": title}), DATA)
    for raw, reader in ((raw_npz, aio.read_npz), (raw_st, aio.read_safetensors)):
        if ok:
            assert reader(raw, True)["title"] == title
        else:
            assert refused(raw, reader) == f"title: a string of {chars:,} characters; titles are at most {MAX_TITLE}"
    mask = qk(**{"mask.npy": npy(np.array("m" * chars))})
    if not ok:
        assert refused(mask) == f"mask: a value of {chars:,} characters; a setting is a word or a number"


def test_an_npy_header_over_the_limit_is_refused():
    big = npy_head((2, 2), "<f8")
    assert len(big) < npz_members.MAX_NPY_HEADER
    raw = npz({"Q.npy": b"\x93NUMPY\x02\x00" + (20_000).to_bytes(4, "little") + b" " * 20_000, "K.npy": npy(EYE)})
    assert refused(raw).startswith("Q: not a readable .npy array (")


def test_safetensors_commas_bounded_at_the_limit():
    n = aio.MAX_HEADER_COMMAS
    assert n == 4 * MAX_T + 1024
    over = safetensors(st_qk(meta={"title": "a" + "," * n}), DATA)
    assert (
        refused(over, aio.read_safetensors) == f"its header holds more than {n:,} commas; far more than a scenario has"
    )
    head = json.dumps(st_qk(meta={"c": "1.0"}))
    assert head.count(",") < n and aio.read_safetensors(safetensors(head, DATA), True)["c"] == 1.0


def test_safetensors_dtype_must_be_a_string_and_shape_plain_integers():
    for dtype in (["F64"], {"a": 1}, 64, None):
        raw = safetensors(st_qk({"dtype": dtype, "shape": [2, 2], "data_offsets": [0, 32]}), DATA)
        assert refused(raw, aio.read_safetensors).startswith(f"Q: dtype {dtype!r}; a matrix holds")
    raw = safetensors(st_qk({"dtype": "F64", "shape": [2, True], "data_offsets": [0, 32]}), DATA)
    assert refused(raw, aio.read_safetensors) == "Q: shape [2, True] is not a list of sizes"


def test_cut_keeps_exactly_most_code_points_of_plain_text():
    assert labeltext.cut("abcdef", 3) == "abc" and labeltext.cut("abc", 3) == "abc" and labeltext.cut("ab", 0) == ""
    assert labeltext.last_cluster("ab\u2764\ufe0f") == "\u2764\ufe0f" and labeltext.last_cluster("ab") == "b"
    assert labeltext.bad_format_char("a\u200db\u200c") is None and labeltext.bad_format_char("a\u00ad") == "\u00ad"
    assert labeltext.shows_something("\u200d\u0301a") and not labeltext.shows_something("\u2800 \u115f")


def test_the_directory_holds_at_most_max_members_entries():
    at_limit = npz({"Q.npy": npy(EYE), "K.npy": npy(EYE), **{f"z{i}.npy": npy(EYE) for i in range(62)}})
    assert refused(at_limit).startswith("z0: unknown key")  # 64 entries: past the directory, refused by name
    over = npz({"Q.npy": npy(EYE), "K.npy": npy(EYE), **{f"z{i}.npy": npy(EYE) for i in range(63)}})
    assert refused(over).startswith("its zip directory declares 65 entries in ")
    assert npz_members.MAX_DIRECTORY == 64 * 1024


@pytest.mark.parametrize("version", [1, 2])
def test_the_npy_header_length_is_judged_before_numpy_reads_the_header(version):
    """numpy reads (inflates) a whole header before its max_header_size: the length field is
    judged first, at MAX_NPY_HEADER exactly (a v1 length is 2 bytes, a v2 one 4)."""
    n = npz_members.MAX_NPY_HEADER
    width = 2 if version == 1 else 4
    for length, ok in ((n, True), (n + 1, False)):
        first = b"\x93NUMPY" + bytes([version, 0]) + length.to_bytes(width, "little") + b"  "
        if ok:
            npz_members._check_header_length(first)  # numpy then judges the header itself
        else:
            with pytest.raises(ValueError, match=f"its .npy header claims {n + 1:,} bytes; at most {n:,}"):
                npz_members._check_header_length(first)
    npz_members._check_header_length(b"not npy")  # not an .npy: numpy says so

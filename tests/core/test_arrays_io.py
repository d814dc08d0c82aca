"""Scenario files of arrays (.npz, .safetensors): read like TOML, refused like TOML.

Every expectation is computed from the arrays written here; refusals are compared with the
TOML door's for the same mistake where TOML can make it."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest
from safetensors.numpy import save_file

from attn_tui.cli import main
from attn_tui.core.limits import EDIT_MAX, MAX_T, TOML_MAX, gib, trace_bytes
from attn_tui.core.scenario_io import ScenarioError, dumps, resolve

RNG = np.random.default_rng(13)


def qkv(T=5, d=4, dv=3, dtype=np.float64):
    return {k: RNG.standard_normal((T, w)).astype(dtype) for k, w in (("Q", d), ("K", d), ("V", dv))}


def npz(tmp_path, name="s.npz", **arrays):
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


def st(tmp_path, arrays, meta=None, name="s.safetensors"):
    path = tmp_path / name
    save_file(arrays, str(path), metadata=meta)
    return path


def refusal(path, large=False):
    with pytest.raises(ScenarioError) as err:
        resolve(path, large=large)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path) + ": ")
    return msg.removeprefix(str(path) + ": ")


# -- reading ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_npz_opens_with_labels_and_settings_and_keeps_the_dtype(tmp_path, dtype):
    a = qkv(dtype=dtype)
    toks = np.array(["the", "cat", "sat", "on", "it"])
    p = npz(tmp_path, **a, tokens=toks, mask=np.array("none"), c=np.array(1.5), scaled=np.array(False))
    s = resolve(p)
    assert s.dtype == dtype  # no dtype setting: the arrays' own
    assert s.tokens == tuple(toks.tolist()) and s.mask == "none" and s.c == 1.5 and s.scaled is False
    for k in "QKV":
        np.testing.assert_array_equal(getattr(s, k), a[k].astype(np.float64))  # exact: a widening cast
    tr = s.run()
    assert tr.A.dtype == np.dtype(dtype)


def test_a_dtype_setting_wins_and_mixed_arrays_take_the_widest(tmp_path):
    a = qkv()
    assert resolve(npz(tmp_path, **a, dtype=np.array("float16"))).dtype == "float16"
    mixed = {"Q": a["Q"].astype(np.float16), "K": a["K"].astype(np.float32)}
    assert resolve(npz(tmp_path, "m.npz", **mixed)).dtype == "float32"
    assert resolve(npz(tmp_path, "i.npz", Q=np.eye(3, dtype=np.int32), K=np.eye(3, dtype=np.int32))).dtype == "float64"


def test_npz_projected_with_padding_and_window(tmp_path):
    X = RNG.standard_normal((6, 4))
    W = {k: RNG.standard_normal((4, 4)) for k in ("W_Q", "W_K", "W_V")}
    p = npz(
        tmp_path, X=X, **W, features=np.array(list("abcd")), mask=np.array("window"), window=np.array(2),
        padding=np.array([1, 3]),
    )  # fmt: skip
    s = resolve(p)
    assert s.projected and s.features == ("a", "b", "c", "d") and s.window == 2 and s.padding == (1, 3)
    np.testing.assert_array_equal(s.X, X)


def test_safetensors_opens_with_json_metadata(tmp_path):
    a = qkv(dtype=np.float32)
    meta = {"tokens": json.dumps(list("abcde")), "c": "2.0", "scaled": "false", "mask": "causal", "padding": "[2]"}
    s = resolve(st(tmp_path, a, meta))
    assert (s.tokens, s.c, s.scaled, s.mask, s.padding, s.dtype) == (
        tuple("abcde"),
        2.0,
        False,
        "causal",
        (2,),
        "float32",
    )
    np.testing.assert_array_equal(s.Q, a["Q"].astype(np.float64))
    assert resolve(st(tmp_path, a, {"mask": json.dumps("none")}, "b.safetensors")).mask == "none"


def test_the_same_scenario_from_toml_npz_and_safetensors_computes_the_same(tmp_path):
    a = qkv()
    (tmp_path / "s.toml").write_text(dumps(resolve(npz(tmp_path, **a))))
    A = [resolve(p).run().A for p in (tmp_path / "s.toml", tmp_path / "s.npz", st(tmp_path, a))]
    np.testing.assert_array_equal(A[0], A[1])
    np.testing.assert_array_equal(A[0], A[2])


# -- refusals -----------------------------------------------------------------------------
def test_refusals_match_the_toml_door(tmp_path):
    """The same mistake gives the same words after the file name, whichever format holds it."""
    bad = qkv()
    bad["Q"][1, 2] = np.nan
    toml = tmp_path / "s.toml"
    toml.write_text(
        "\n".join(
            f"{k} = [{', '.join('[' + ', '.join(repr(float(x)) for x in r) + ']' for r in v)}]" for k, v in bad.items()
        )
    )
    assert refusal(npz(tmp_path, **bad)) == refusal(toml) == "Q: row 2, column 3 is nan; entries must be finite"
    assert refusal(st(tmp_path, bad)) == refusal(toml)
    chain = qkv()
    chain["K"] = chain["K"][:, :3]
    toml.write_text(f"Q = {chain['Q'].tolist()}\nK = {chain['K'].tolist()}\nV = {chain['V'].tolist()}\n")
    assert refusal(npz(tmp_path, "c.npz", **chain)) == refusal(toml)
    toml.write_text(f"Q = {qkv()['Q'].tolist()}\nK = {qkv()['K'].tolist()}\nZ = 1\n")
    assert refusal(toml).startswith("Z: unknown key; known keys: title, tokens")
    assert refusal(npz(tmp_path, "z.npz", **qkv(), Z=np.eye(2))) == refusal(toml)


@pytest.mark.parametrize(
    "arrays, words",
    [
        ({"Q": np.ones((2, 3, 4)), "K": np.ones((3, 4))}, "Q: a 3-D array of shape (2, 3, 4); a matrix is 2-D"),
        ({"Q": np.ones(4), "K": np.ones((3, 4))}, "Q: a 1-D array of shape (4,)"),
        ({"Q": np.ones((0, 4)), "K": np.ones((3, 4))}, "Q: is empty (shape 0x4)"),
        ({"Q": np.ones((2, 2), dtype=complex), "K": np.ones((2, 2))}, "Q: complex128 entries; a matrix holds float16"),
        ({"Q": np.ones((2, 2), dtype=bool), "K": np.ones((2, 2))}, "Q: bool entries"),
        ({"Q": np.array([["a", "b"]]), "K": np.ones((1, 2))}, "Q: str256 entries"),
        ({"Q": np.eye(2), "K": np.eye(2), "tokens": np.array([1, 2])}, "tokens: int64 entries; labels are strings"),
        ({"Q": np.eye(2), "K": np.eye(2), "c": np.array([1.0, 2.0])}, "c: a 1-D array of shape (2,); a setting is one"),
        ({"Q": np.eye(2), "K": np.eye(2), "tokens": np.array(["a"])}, "tokens: 1 labels for 2 rows/columns"),
        ({"Q": np.eye(2), "K": np.eye(2), "mask": np.array("diag")}, "mask: unknown mask 'diag'"),
        ({"Q": np.eye(2), "K": np.eye(2), "c": np.array(1e9)}, "c: the scale multiplier must be a number from 0.001"),
        ({"Q": np.eye(2) * 1e7, "K": np.eye(2)}, "Q: row 1, column 1 is 1e+07; entries must satisfy |x| <= 1e+06"),
    ],
)
def test_bad_npz_arrays_are_refused_in_one_line(tmp_path, arrays, words):
    assert refusal(npz(tmp_path, **arrays)).startswith(words.replace("str256", np.array([["a", "b"]]).dtype.name))


def test_object_arrays_and_pickles_are_never_loaded(tmp_path):
    p = tmp_path / "o.npz"
    np.savez(p, Q=np.array([[1.0, {"x": 1}]], dtype=object), K=np.eye(2))  # numpy pickles an object array
    assert refusal(p).startswith("Q: an object array (pickled Python objects); only numeric arrays are read")
    raw = io.BytesIO()  # a member that is a bare pickle, not an .npy
    with zipfile.ZipFile(raw, "w") as zf:
        zf.writestr("Q.npy", b"\x80\x04\x95" + os.urandom(32))
    (tmp_path / "p.npz").write_bytes(raw.getvalue())
    assert refusal(tmp_path / "p.npz").startswith("Q: not a readable .npy array")


def _npz_with_header(tmp_path, shape, body=b""):
    """An .npz whose Q header claims ``shape`` but holds ``body``: sizes must be judged from the header."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False, "shape": shape})
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as zf:
        zf.writestr("Q.npy", head.getvalue() + body)
        zf.writestr("K.npy", head.getvalue() + body)
    p = tmp_path / "h.npz"
    p.write_bytes(raw.getvalue())
    return p


def test_sizes_are_checked_from_the_headers_before_reading(tmp_path):
    p = _npz_with_header(tmp_path, (100_000, 4))  # no data at all: a read would fail differently
    need = gib(trace_bytes(100_000, 100_000))
    assert refusal(p, large=True) == (
        f"Q: T = 100000 tokens; at most {MAX_T}: its T x T' matrices would need {need} "
        "(5 of 100000 x 100000 in float64)"
    )
    assert refusal(p).startswith(f"Q: T = 100000 tokens; at most {TOML_MAX} here (`attn-tui --scenario FILE`")
    assert need == "372.5 GiB"  # 5 x 8 bytes x 1e10, the 74.5 GiB per matrix


def test_truncated_and_corrupt_files(tmp_path):
    short = refusal(_npz_with_header(tmp_path, (3, 4), b"\x00" * 8))
    assert short.startswith("Q: not a readable .npy array (its header")
    (tmp_path / "r.npz").write_bytes(os.urandom(200))
    assert refusal(tmp_path / "r.npz") == "not a valid .npz (zip) file; write one with numpy.savez"
    good = st(tmp_path, qkv()).read_bytes()
    cases = {
        "short": good[:5],
        "claims": (10**9).to_bytes(8, "little") + good[8:],
        "json": (4).to_bytes(8, "little") + b"{{{{" + good[12:],
        "cut": good[:-10],
    }
    words = {
        "short": "5 bytes, too short for a safetensors header",
        "claims": "its header claims 1,000,000,000 bytes",
        "json": "its header is not valid JSON",
        "cut": "not a readable safetensors file",
    }
    for name, raw in cases.items():
        (tmp_path / f"{name}.safetensors").write_bytes(raw)
        assert refusal(tmp_path / f"{name}.safetensors").startswith(words[name])


def test_safetensors_refusals(tmp_path):
    a = qkv()
    assert refusal(st(tmp_path, {**a, "Z": np.eye(2)})).startswith("Z: unknown key")
    assert refusal(st(tmp_path, a, {"tokens": "[1, 2"}, "j.safetensors")).startswith("tokens: '[1, 2' is not JSON")
    assert refusal(st(tmp_path, a, {"c": "1e9"}, "c.safetensors")).startswith("c: the scale multiplier")
    assert refusal(st(tmp_path, {"Q": np.ones((2, 3, 4)), "K": np.ones((3, 4))}, None, "r.safetensors")).startswith(
        "Q: a 3-D array of shape (2, 3, 4)"
    )
    head = json.dumps({"Q": {"dtype": "BF16", "shape": [1, 1], "data_offsets": [0, 2]}}).encode()
    (tmp_path / "bf.safetensors").write_bytes(len(head).to_bytes(8, "little") + head + b"\x00\x00")
    assert refusal(tmp_path / "bf.safetensors").startswith("Q: dtype 'BF16'; a matrix holds F16, F32, F64")


def test_a_fifo_is_refused_unopened(tmp_path):
    fifo = tmp_path / "f.npz"
    os.mkfifo(fifo)
    assert refusal(fifo) == "is a FIFO (named pipe), not a regular file; a scenario is a TOML file"


def test_large_files_pass_the_report_door_only(tmp_path):
    T = TOML_MAX + 1
    p = npz(tmp_path, **qkv(T=T, d=8, dv=8))
    assert refusal(p).startswith(f"Q: T = {T} tokens; at most {TOML_MAX} here")
    assert resolve(p, large=True).T == T
    wide = npz(tmp_path, "w.npz", Q=np.ones((T, 300)), K=np.ones((T, 300)))  # refused by width before issue 48
    assert resolve(wide, large=True).d_k == 300
    assert refusal(wide).startswith(f"Q: T = {T} tokens; at most {TOML_MAX} here")


def test_a_single_head_file_is_refused_for_what_its_reader_would_hold(tmp_path):
    """From the headers alone (no data): a Q of 16,384 x 16,384 means 4 GiB of Q and K in float64."""
    big = refusal(_npz_with_header(tmp_path, (MAX_T, MAX_T)), large=True)
    assert big == (
        "Q: Q, K, V of a head: 4.0 GiB in float64 at 16,384 tokens (d_k 16384, d_v 0, d_model 0); "
        "a reader holds at most 2.0 GiB at once"
    )
    wide = refusal(_npz_with_header(tmp_path, (4, MAX_T + 1)), large=True)
    assert wide == f"Q: d_k: width {MAX_T + 1}; widths (d_model, d_k, d_v) are at most 16,384"


def test_the_cli_refuses_a_bad_array_file_with_exit_2(tmp_path, capsys):
    bad = qkv()
    bad["V"][0, 0] = np.inf
    p = npz(tmp_path, **bad)
    assert main(["report", "--scenario", str(p)]) == 2
    err = capsys.readouterr().err
    assert err == f"attn-tui: {p}: V: row 1, column 1 is inf; entries must be finite\n"  # the one prefix (cli/errors)


def test_the_editor_adds_no_token_to_a_large_file(tmp_path):
    from attn_tui.core.edit import EditError, add_token

    s = resolve(npz(tmp_path, **qkv(T=EDIT_MAX + 3, d=2, dv=2)), large=True)
    with pytest.raises(EditError) as err:
        add_token(s)
    assert str(err.value) == (
        f"tokens: at most {EDIT_MAX} tokens are added here; this scenario has {EDIT_MAX + 3}, from an array file"
    )

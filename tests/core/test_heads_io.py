"""Multi-head files (core.heads.multihead_io): round trips, lazy reads (one head's bytes), and each
kind of bad file refused in one line naming the array or setting."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_io import is_heads_file, open_file
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.source import all_readings, head_scenario
from tests.core.headtools import save_source

L, H, H_KV, T, D = 3, 4, 2, 6, 5


def arrays(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return {
        "Q": rng.normal(size=(L, H, T, D)).astype(dtype),
        "K": rng.normal(size=(L, H_KV, T, D)).astype(dtype),
        "V": rng.normal(size=(L, H_KV, T, D + 1)).astype(dtype),
    }


SUFFIXES = ["npz", "safetensors", "compressed.npz"]


def write(tmp_path, suffix, **kw):
    a = arrays() | {k: v for k, v in kw.items() if k in ("Q", "K", "V", "W_O", "A", "M")}
    settings = {k: v for k, v in kw.items() if k not in a}
    path = tmp_path / f"heads.{suffix}"
    return save_heads(path, **a, compressed=suffix.startswith("compressed"), **settings), a


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_round_trip_and_one_heads_bytes(tmp_path, suffix):
    tokens = ["a", "b", "a", "c", "b", "a"]
    path, a = write(tmp_path, suffix, tokens=tokens, scale=[0.5, 1.0, 2.0], mask=["causal", "none", "window:2"])
    src = open_file(path)
    assert (src.n_layers, src.n_heads, src.n_kv_heads, src.T, src.T_k, src.d_k) == (L, H, H_KV, T, T, D)
    assert src.kv_head == (0, 0, 1, 1) and src.scales == (0.5, 1.0, 2.0) and src.tokens == tuple(tokens)
    assert src.masks == (("causal", None), ("none", None), ("window", 2)) and src.dtype == "float32"
    assert src.read.bytes_read == 0  # opening read headers only
    s = head_scenario(src, 2, 3)
    np.testing.assert_array_equal(s.Q, a["Q"][2, 3])
    np.testing.assert_array_equal(s.K, a["K"][2, 1])
    np.testing.assert_array_equal(s.V, a["V"][2, 1])
    assert (s.mask, s.window, s.dtype) == ("window", 2, "float32")
    assert s.scale == pytest.approx(2.0, rel=4 * np.finfo(np.float64).eps)
    assert src.read.bytes_read == a["Q"][2, 3].nbytes + a["K"][2, 1].nbytes + a["V"][2, 1].nbytes


@pytest.mark.parametrize("suffix", ["npz", "safetensors"])
def test_the_demo_round_trips_with_its_weights_and_W_O(tmp_path, suffix):
    demo = open_heads("induction-demo", "q w e r q w e r z")
    back = open_file(save_source(demo, tmp_path / f"demo.{suffix}"))
    assert back.has("A") and back.has("W_O") and back.ids == demo.ids
    assert [r.as_dict() for r in all_readings(back)] == [r.as_dict() for r in all_readings(demo)]


def test_additive_mask_layer_and_explicit_head_map(tmp_path):
    M = np.zeros((L, T, T))
    M[1] = np.triu(np.full((T, T), -1e9), 1)  # a causal pattern written as an additive mask
    M[2, :, 0] = -1e9  # key 1 blocked for every row: no single-head mask says that
    path, _ = write(tmp_path, "npz", M=M, mask=["causal", "additive", "additive"], kv_head=[1, 0, 1, 0])
    src = open_file(path)
    assert src.kv_head == (1, 0, 1, 0)
    assert head_scenario(src, 1, 0).mask == "causal"
    with pytest.raises(ValueError, match="layer 2 has an explicit additive mask") as e:
        head_scenario(src, 2, 0)
    assert "\n" not in str(e.value)
    r = all_readings(src, 2)[0]
    assert r.first_token == 0.0  # key 1 is blocked: no weight on it
    assert r.mean_ceiling_bits == pytest.approx(np.log2(T - 1), rel=8 * np.finfo(np.float64).eps)  # T - 1 keys


def npz(tmp_path, **arrs):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrs)
    return path


BAD = {
    "2-D Q": (lambda a: a | {"Q": a["Q"][0, 0]}, ["Q: a 2-D array", "[L, H, T, d_k]"]),
    "layers differ": (lambda a: a | {"K": a["K"][:2], "V": a["V"][:2]}, ["K: 2 layers", "Q has 3"]),
    "d_k differs": (lambda a: a | {"K": a["K"][..., :3]}, ["K: 3 columns (d_k)"]),
    "V keys differ": (lambda a: a | {"V": a["V"][:, :, :4]}, ["V: 4 key tokens"]),
    "more K/V heads": (
        lambda a: a | {"K": np.concatenate([a["K"]] * 3, 1), "V": np.concatenate([a["V"]] * 3, 1)},
        ["K: 6 K/V heads for 4 query heads"],
    ),
    "no V": (lambda a: {"Q": a["Q"], "K": a["K"]}, ["V: missing"]),
    "unknown array": (lambda a: a | {"X": a["Q"]}, ["X: unknown array"]),
    "W_O shape": (lambda a: a | {"W_O": np.zeros((3, 7, 4))}, ["W_O: shape (3, 7, 4)", "(3, 24, '*')"]),
    "A shape": (lambda a: a | {"A": np.zeros((3, 4, 6, 5))}, ["A: shape"]),
    "scale count": (lambda a: a | {"scale": np.array([1.0, 2.0])}, ["scale: 2 values for 3 layers"]),
    "mask count": (lambda a: a | {"mask": np.array(["causal", "none"])}, ["mask: 2 values for 3 layers"]),
    "mask kind": (lambda a: a | {"mask": np.array("diagonal")}, ["mask: layer 0 has 'diagonal'"]),
    "bad scale": (lambda a: a | {"scale": np.array(-1.0)}, ["scale: layer 0 has -1.0"]),
    "head map length": (lambda a: a | {"kv_head": np.array([0, 1])}, ["kv_head:", "one K/V head per query head (4)"]),
    "head map range": (lambda a: a | {"kv_head": np.array([0, 1, 2, 0])}, ["kv_head: head 2 maps to 2"]),
    "tokens count": (lambda a: a | {"tokens": np.array(["a", "b"])}, ["tokens: 2 labels for 6 query tokens"]),
    "additive without M": (lambda a: a | {"mask": np.array("additive")}, ["M: missing"]),
    "M without additive": (lambda a: a | {"M": np.zeros((3, 6, 6))}, ["M: an additive mask per layer goes with"]),
    "empty": (lambda a: a | {"Q": np.zeros((3, 4, 0, 5))}, ["Q: is empty"]),
    "strings": (lambda a: a | {"K": np.full((3, 2, 6, 5), "x")}, ["K: str32 entries", "float64 or integers"]),
    "complex": (lambda a: a | {"W_O": np.zeros((3, 24, 2), complex)}, ["W_O: complex128 entries"]),
    "unknown setting": (lambda a: a | {"colour": np.array("red")}, ["colour: unknown setting"]),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_files_refused_in_one_line(tmp_path, case):
    change, words = BAD[case]
    path = npz(tmp_path, **change(arrays()))
    with pytest.raises(ValueError) as e:
        open_file(path)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(path)) and all(w in msg for w in words), msg


def test_gqa_without_a_whole_ratio_needs_the_map(tmp_path):
    a = arrays()
    a["K"], a["V"] = a["K"][:, :1].repeat(3, 1), a["V"][:, :1].repeat(3, 1)  # 4 heads over 3 K/V heads
    with pytest.raises(ValueError, match="kv_head: missing; 4 heads over 3 K/V heads"):
        open_file(npz(tmp_path, **a))
    assert open_file(npz(tmp_path, **a, kv_head=np.array([0, 1, 2, 2]))).kv_head == (0, 1, 2, 2)


def test_non_finite_entry_named_when_its_head_is_read(tmp_path):
    a = arrays(dtype=np.float64)
    a["Q"][1, 2, 3, 4] = np.nan
    src = open_file(npz(tmp_path, **a))
    head_scenario(src, 1, 1)  # another head reads fine
    with pytest.raises(ValueError, match=r"Q: layer 1, head 2, row 4, column 5 is nan"):
        head_scenario(src, 1, 2)


@pytest.mark.parametrize("suffix", ["npz", "safetensors"])
def test_truncated_file_refused(tmp_path, suffix):
    path, _ = write(tmp_path, suffix)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) - 200])
    with pytest.raises(ValueError) as e:
        src = open_file(path)
        head_scenario(src, L - 1, H - 1)  # the last head's bytes are gone
    assert "\n" not in str(e.value)


def test_safetensors_header_lies_and_pickles(tmp_path):
    path, _ = write(tmp_path, "safetensors")
    raw = bytearray(path.read_bytes())
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    header["Q"]["shape"] = [L, H, T, D + 1]  # claims more than its offsets hold
    text = json.dumps(header, separators=(",", ":")).encode().ljust(n)
    path.write_bytes(bytes(raw[:8]) + text + bytes(raw[8 + n :]))
    with pytest.raises(ValueError, match="Q: data_offsets .* truncated or inconsistent"):
        open_file(path)
    pick = tmp_path / "pickle.npz"
    np.savez(pick, Q=np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="object array"):
        open_file(pick)


def test_refuses_a_folder_a_fifo_and_a_zip_that_is_not_npz(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        open_file(tmp_path)
    fifo = tmp_path / "f.npz"
    import os

    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        open_file(fifo)  # refused from its stat: nothing blocks
    z = tmp_path / "z.npz"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("notes.txt", "hello")
    with pytest.raises(ValueError, match="'notes.txt': not a NumPy array"):  # npz_members' words
        open_file(z)
    assert not is_heads_file(z) and not is_heads_file(fifo)


def test_entry_beyond_the_bound_named_with_its_file(tmp_path):
    a = arrays(dtype=np.float64)
    a["V"][0, 1, 2, 0] = 3e7
    path = npz(tmp_path, **a)
    with pytest.raises(ValueError) as e:
        head_scenario(open_file(path), 0, 3)  # head 3 reads K/V head 1
    assert str(e.value) == f"{path}: V: layer 0, head 1, row 3, column 1 is 3e+07; entries must be finite, |x| <= 1e+06"


def test_a_long_title_still_makes_a_scenario(tmp_path):
    path, _ = write(tmp_path, "safetensors", title="x" * 200)
    assert len(head_scenario(open_file(path), 0, 0).title) <= 200


def test_combine_and_own_weights_against_each_head_scenario(tmp_path):
    rng = np.random.default_rng(5)
    d_model = 7
    W_O = rng.normal(size=(L, H * (D + 1), d_model))
    path, a = write(tmp_path, "npz", W_O=W_O)
    src = open_file(path)
    s = [head_scenario(src, 1, h).with_(dtype="float64").run() for h in range(H)]  # each head, explorer-computed
    A = np.zeros((L, H, T, T))
    A[1] = [tr.A for tr in s]
    A[1, 2, 3, 1] += 0.25  # the "model's own" weights, off by 0.25 in one cell of one head
    src = open_file(save_heads(tmp_path / "withA.npz", a["Q"], a["K"], a["V"], W_O=W_O, A=A))
    from attn_tui.core.heads.combine import combine
    from tests.core.headtools import own_weights_diff

    c = combine(src, 1)
    want = sum(s[h].O @ W_O[1, h * (D + 1) : (h + 1) * (D + 1)] for h in range(H))
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(c.output, want, rtol=0, atol=64 * eps * float(np.abs(want).max()))
    assert c.holds and c.max_abs_diff <= c.tolerance
    assert own_weights_diff(src, 1, 0) <= 16 * eps
    assert own_weights_diff(src, 1, 2) == pytest.approx(0.25, abs=16 * eps)


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        (np.zeros(2000, int), "kv_head: 2,000 values; one per layer or head, at most 1024"),
        (np.array(["causal" * 1000]), "kv_head: a value of 6,000 characters"),
    ],
    ids=["2000 entries", "a 6000-character entry"],
)
def test_npz_settings_are_judged_from_their_headers_before_they_are_read(tmp_path, setting, words, monkeypatch):
    """A settings member (kv_head, scale, mask) is one value or one per layer or head, each a word or
    a number, refused from its .npy header: npz_members.read_members never runs."""
    from attn_tui.core import npz_members

    monkeypatch.setattr(npz_members, "read_members", lambda *a: pytest.fail("a settings member was read"))
    with pytest.raises(ValueError, match=words):
        open_file(npz(tmp_path, **arrays(), kv_head=setting))

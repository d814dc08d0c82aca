"""multihead_write.save_layers: a .safetensors file written layer by layer (what `attn-tui capture`
writes from the model's own tensors, never stacked first) is a safetensors file as the library
itself reads it, and the multi-head door reads the same numbers from it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import load_file

from attn_tui.core.heads.multihead_io import open_file
from attn_tui.core.heads.multihead_write import save_heads, save_layers


def _layers(rng, L, *shape, dtype=np.float32):
    """L layers, each a non-contiguous view (a transposed array), as a model's query is."""
    return [rng.standard_normal(shape[::-1]).astype(dtype).T for _ in range(L)]


def test_layers_written_one_by_one_read_back_by_the_library(tmp_path):
    rng = np.random.default_rng(3)
    L, H, T, d = 2, 3, 5, 3  # odd sizes: a float64 array after float32 ones must still be aligned
    Q = _layers(rng, L, H, T, d)
    M = np.stack([np.triu(np.full((T, T), -1e9), 1)] * L)  # float64, as a stacked [L, ...] array
    big = np.arange(L * H * T * d, dtype=">f4").reshape(L, H, T, d)  # big-endian: written little-endian
    path = save_layers(tmp_path / "l.safetensors", {"Q": Q, "K": big, "M": M}, {"title": "t", "mask": '"additive"'})
    got = load_file(path)
    assert got["Q"].dtype == np.float32 and got["Q"].shape == (L, H, T, d)
    np.testing.assert_array_equal(got["Q"], np.stack(Q))
    np.testing.assert_array_equal(got["K"], big.astype("<f4"))
    np.testing.assert_array_equal(got["M"], M)
    with safe_open(path, "np") as f:
        assert f.metadata() == {"title": "t", "mask": '"additive"'}
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    assert n % 8 == 0 and raw[8 + n - 1 : 8 + n] in (b"}", b" ")  # the header padded with spaces to 8 bytes
    offsets = {k: v["data_offsets"] for k, v in json.loads(raw[8 : 8 + n]).items() if k != "__metadata__"}
    assert offsets["M"][0] % 8 == 0 and sorted(b for o in offsets.values() for b in o)[-1] == len(raw) - 8 - n


def test_save_heads_takes_layers_or_stacked_arrays_alike(tmp_path):
    rng = np.random.default_rng(4)
    L, H, T, d = 2, 2, 4, 3
    Q, K, V = (_layers(rng, L, H, T, d) for _ in range(3))
    A = [np.full((H, T, T), 1 / T, np.float32)] * L
    kw = dict(tokens=list("abcd"), mask="none", title="t", provenance={"max_abs_dA": 0.0})
    for suffix in (".safetensors", ".npz"):
        from_layers = open_file(save_heads(tmp_path / f"l{suffix}", Q, K, V, A=A, **kw))
        stacked = open_file(save_heads(tmp_path / f"s{suffix}", *map(np.stack, (Q, K, V)), A=np.stack(A), **kw))
        for src in (from_layers, stacked):
            assert src.shapes == {"Q": (L, H, T, d), "K": (L, H, T, d), "V": (L, H, T, d), "A": (L, H, T, T)}
            assert src.provenance == {"max_abs_dA": 0.0}
            np.testing.assert_array_equal(src.read("Q", 1, 1), Q[1][1])
            np.testing.assert_array_equal(src.read("V", 0, 1), V[0][1])


def test_layers_of_another_shape_or_dtype_are_refused(tmp_path):
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="Q: its layers differ in shape or dtype"):
        save_layers(tmp_path / "x.safetensors", {"Q": [a, np.zeros((2, 4), np.float32)]}, {})
    with pytest.raises(ValueError, match="Q: its layers differ in shape or dtype"):
        save_layers(tmp_path / "x.safetensors", {"Q": [a, a.astype(np.float64)]}, {})
    with pytest.raises(ValueError, match="Q: dtype complex64"):
        save_layers(tmp_path / "x.safetensors", {"Q": [a.astype(np.complex64)]}, {})

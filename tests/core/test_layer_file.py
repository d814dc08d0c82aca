"""core.heads.layer_file: a multi-head file written a layer at a time reads back exactly as the
whole-array writer's (multihead_write.save_heads) does, whatever the order of the layers, with an
optional M given by some layers only, and with a header larger than its reservation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core.heads.layer_file import LayerFile
from attn_tui.core.heads.multihead_io import open_file
from attn_tui.core.heads.multihead_write import save_heads

L, H, H_KV, T, D = 3, 4, 2, 6, 5


def layers(seed=0):
    rng = np.random.default_rng(seed)
    return [
        {
            "Q": rng.normal(size=(H, T, D)).astype(np.float32),
            "K": rng.normal(size=(H_KV, T, D)).astype(np.float32),
            "V": rng.normal(size=(H_KV, T, D + 1)).astype(np.float32),
            "W_O": rng.normal(size=(H * (D + 1), 7)),  # float64: a wider dtype than the rest
        }
        for _ in range(L)
    ]


def settings(masks):
    return {"tokens": [f"w{t}" for t in range(T)], "mask": masks, "scale": [0.5, 0.25, 0.125], "title": "x"}


def write_by_layer(path, per_layer, order, meta, reserve=4096, M=None):
    path.touch()
    optional = {"M": ((T, T), np.float64)} if M is not None else None
    with LayerFile(path, L, reserve, optional) as f:
        for ly in order:
            f.add(ly, per_layer[ly] | ({"M": M[ly]} if M is not None and M[ly] is not None else {}))
        f.finish({k: v if k == "title" else json.dumps(v) for k, v in meta.items()})
    return path


@pytest.mark.parametrize("reserve", [4096, 8])  # 8: the header outgrows its room and the data moves once
@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1)])
def test_reads_back_as_the_whole_array_writer(tmp_path, monkeypatch, order, reserve):
    moved = []
    real = LayerFile._move_data
    monkeypatch.setattr(LayerFile, "_move_data", lambda self, text: moved.append(1) or real(self, text))
    per = layers()
    meta = settings(["causal", "none", "window:2"]) | {"title": "a title longer than the header's room " * 20}
    path = write_by_layer(tmp_path / "by_layer.safetensors", per, order, meta, reserve)
    whole = {k: np.stack([p[k] for p in per]) for k in per[0]}
    ref = save_heads(tmp_path / "whole.safetensors", **whole, **meta)
    a, b = open_file(path), open_file(ref)
    assert (a.shapes, a.masks, a.scales, a.tokens) == (b.shapes, b.masks, b.scales, b.tokens)
    for ly in range(L):
        np.testing.assert_array_equal(a.read("W_O", ly), per[ly]["W_O"])
        for h in range(H):
            for x, y in zip(a.qkv(ly, h), b.qkv(ly, h)):
                np.testing.assert_array_equal(x, y)
    assert not list(tmp_path.glob("*.move"))
    assert moved == ([1] if reserve == 8 else [])


def test_an_optional_mask_of_some_layers_and_none(tmp_path):
    """M given by layer 1 only: the other layers' M reads as zeros; given by none: no M in the file,
    and the file ends where V's last layer does (nothing reserved for M left behind)."""
    per = layers()
    blocked = np.where(np.triu(np.ones((T, T), bool), 1), -1e9, 0.0)
    M = [None, blocked, None]
    meta = settings(["causal", "additive", "causal"])
    src = open_file(write_by_layer(tmp_path / "m.safetensors", per, (0, 1, 2), meta, M=M))
    np.testing.assert_array_equal(src.read("M", 1), blocked)
    np.testing.assert_array_equal(src.read("M", 0), np.zeros((T, T)))
    meta = settings(["causal"] * 3)
    path = write_by_layer(tmp_path / "none.safetensors", per, (0, 1, 2), meta, M=[None] * 3)
    src = open_file(path)
    assert not src.has("M")
    data = sum(x.nbytes for p in per for x in p.values())
    header = int.from_bytes(path.read_bytes()[:8], "little")
    assert path.stat().st_size == 8 + header + data


def test_a_layer_unlike_the_first_is_refused(tmp_path):
    per = layers()
    path = tmp_path / "bad.safetensors"
    path.touch()
    with LayerFile(path, L, 4096) as f:
        f.add(0, per[0])
        with pytest.raises(ValueError, match="Q: layer 1 has shape"):
            f.add(1, per[1] | {"Q": per[1]["Q"][:, :-1]})
        with pytest.raises(ValueError, match="every layer gives"):
            f.add(1, {k: v for k, v in per[1].items() if k != "W_O"})


class Heads:
    """An array given a head at a time (what capture's ByHead gives): the whole's shape and dtype,
    its slices along axis 0 when iterated; ``drop`` heads left out at the end."""

    def __init__(self, a, drop=0):
        self.a, self.shape, self.dtype, self.drop = a, a.shape, a.dtype, drop

    def __iter__(self):
        return iter(self.a[: len(self.a) - self.drop])


def test_a_layer_given_a_head_at_a_time_writes_the_same_bytes(tmp_path):
    per_layer = layers()
    meta = settings(["causal"] * L)
    whole = write_by_layer(tmp_path / "whole.safetensors", per_layer, (0, 1, 2), meta)
    parts = [{k: Heads(v) if v.ndim == 3 else v for k, v in ly.items()} for ly in per_layer]
    headwise = write_by_layer(tmp_path / "heads.safetensors", parts, (2, 0, 1), meta)
    assert headwise.read_bytes() == whole.read_bytes()


def test_a_layer_missing_a_head_is_refused_naming_the_array(tmp_path):
    ly = layers()[0]
    (tmp_path / "f.safetensors").touch()
    with LayerFile(tmp_path / "f.safetensors", L, 4096) as f, pytest.raises(ValueError, match=r"^K: layer 0's parts"):
        f.add(0, ly | {"K": Heads(ly["K"], drop=1)})

"""Each layer as the forward pass gives it: its heads checked by attn-tui's core against the
model's own A, its arrays written to the file (core.heads.layer_file), and the model's A let go
(kept in the file only with --keep-A). The capture's memory is the model's plus one layer's."""

from __future__ import annotations

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from ..core.heads.capture_check import layer_figures
from ..core.heads.layer_file import LayerFile
from ..core.heads.multihead_settings import read_mask_kind
from ..core.heads.source import HeadSource
from . import interface
from .interface import Unsupported

CHECK_BYTES = 32 * 2**20  # the check's float64 block of every head: rows x H x T' x 8 bytes at most


def output_projection(model, module, width: int):
    """The layer's output projection as W_O (H·d_v, d_model) (o = concat · W_O), or None: the
    module's own (o_proj, c_proj, out_proj, dense), else its parent's output.dense (BERT)."""
    names = {m: n for n, m in model.named_modules()}
    candidates = [getattr(module, a, None) for a in ("o_proj", "c_proj", "out_proj", "dense")]
    parent_name = names.get(module, "").rpartition(".")[0]
    parent = model.get_submodule(parent_name) if parent_name else None
    candidates.append(getattr(getattr(parent, "output", None), "dense", None))
    for m in candidates:
        w = getattr(m, "weight", None)
        if not isinstance(w, torch.Tensor) or w.dim() != 2 or w.device.type == "meta":  # meta: offloaded
            continue
        W = w if type(m).__name__ == "Conv1D" else w.T  # Conv1D (GPT-2) is x @ W; nn.Linear is x @ Wᵀ
        if W.shape[0] == width:
            return interface.to_numpy(W)
    return None


def layer_source(layer: interface.Layer, kind: str) -> HeadSource:
    """A one-layer HeadSource over what the layer received (and the model's A), for the check."""
    arrays = {"Q": layer.Q, "K": layer.K, "V": layer.V, "A": layer.A}
    if layer.M is not None:
        arrays["M"] = layer.M

    def read(name, _layer, head=None):
        x = arrays[name] if head is None else arrays[name][head]
        return x if name == "A" else np.asarray(x, dtype=np.float64)  # A is only subtracted from: no copy

    H, H_kv = layer.Q.shape[0], layer.K.shape[0]
    return HeadSource(
        title="capture",
        source="",
        tokens=tuple(f"t{t}" for t in range(1, layer.Q.shape[1] + 1)),
        ids=(),
        key_tokens=(),
        shapes={k: (1, *v.shape) for k, v in arrays.items()},
        kv_head=tuple(h // (H // H_kv) for h in range(H)),  # transformers' repeat_kv
        scales=(layer.scale,),
        masks=(read_mask_kind(kind, 0),),
        dtype=np.result_type(layer.Q, layer.K).name,
        read=read,
    )


def mask_of(layer: interface.Layer) -> str:
    """The layer's mask kind as the file keeps it (a test replaces this to make a wrong capture)."""
    return layer.mask


class LayerSink:
    """``sink(layer_idx, layer)`` for interface.recording: the chosen layers checked and written as
    layer ``chosen.index(layer_idx)`` of the file; the others pass by."""

    def __init__(self, writer: LayerFile, model, chosen: tuple, dtype: str, keep_A: bool = False):
        self.writer, self.model, self.dtype, self.keep_A = writer, model, dtype, keep_A
        self.index = {ly: i for i, ly in enumerate(chosen)}
        self.figures: dict = {}  # file layer -> (each head's max |ΔA|, each head's allowance)
        self.scales: dict = {}
        self.masks: dict = {}
        self.shape: tuple | None = None  # (H, H_kv) of the first layer written
        self.with_w_o: bool | None = None

    def __call__(self, idx: int, layer: interface.Layer) -> None:
        i = self.index.get(idx)
        if i is None:
            return
        H, T, _ = layer.Q.shape
        kind = mask_of(layer)
        arrays = {"Q": layer.Q, "K": layer.K, "V": layer.V}
        W_O = output_projection(self.model, layer.module, H * layer.V.shape[-1])
        if self.with_w_o is None:
            self.with_w_o = W_O is not None
        if self.with_w_o != (W_O is not None):
            raise Unsupported(f"layer {idx}: {'no' if W_O is None else 'an'} output projection, unlike the first")
        if W_O is not None:
            arrays["W_O"] = W_O
        if self.keep_A:
            arrays["A"] = layer.A
        if kind == "additive":
            arrays["M"] = layer.M
        rows = max(1, min(64, CHECK_BYTES // (8 * H * layer.A.shape[-1])))
        with threadpool_limits(1, user_api="blas"):  # torch's threads still spin right after its kernels
            self.figures[i] = layer_figures(layer_source(layer, kind), self.dtype, 0, rows)
        self.writer.add(i, arrays)
        self.scales[i], self.masks[i] = layer.scale, kind
        self.shape = self.shape or (H, layer.K.shape[0])

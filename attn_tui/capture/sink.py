"""Each layer as the forward pass gives it: its heads checked against the model's own A on the
model's device (check_torch: the core's check, in torch), its Q, K, V and W_O brought to the host a
head at a time as the file takes them (core.heads.layer_file), and the model's A let go (brought to
the host and kept in the file only with --keep-A). The capture's memory is the model's plus one
layer's on its device, and one head's on the host."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..core.heads.layer_file import LayerFile
from ..core.heads.multihead_settings import read_mask_kind
from ..core.mask_kinds import MASK_KINDS
from . import interface
from .check_torch import layer_figures
from .interface import ByHead, Unsupported

if TYPE_CHECKING:
    from typing import Any


def output_projection(model: Any, module: Any, width: int) -> Any:
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


def mask_of(layer: interface.Layer) -> str:
    """The layer's mask kind as the file keeps it (a test replaces this to make a wrong capture)."""
    return layer.mask


class LayerSink:
    """``sink(layer_idx, layer)`` for interface.recording: the chosen layers checked and written as
    layer ``chosen.index(layer_idx)`` of the file; the others pass by."""

    def __init__(
        self, writer: LayerFile, model: Any, chosen: tuple[Any, ...], dtype: str, keep_A: bool = False
    ) -> None:
        self.writer, self.model, self.dtype, self.keep_A = writer, model, dtype, keep_A
        self.index = {ly: i for i, ly in enumerate(chosen)}
        self.figures: dict[Any, Any] = {}  # file layer -> (each head's max |ΔA|, each head's allowance)
        self.scales: dict[Any, Any] = {}
        self.masks: dict[Any, Any] = {}
        self.shape: tuple[Any, ...] | None = None  # (H, H_kv) of the first layer written
        self.with_w_o: bool | None = None

    def __call__(self, idx: int, layer: interface.Layer) -> None:
        i = self.index.get(idx)
        if i is None:
            return
        H, H_kv = layer.Q.shape[0], layer.K.shape[0]
        kind = mask_of(layer)
        mask = read_mask_kind(kind, 0)  # (name, W or None): core/mask_kinds.py
        kv_head = [h // (H // H_kv) for h in range(H)]  # transformers' repeat_kv
        self.figures[i] = layer_figures(layer.Q, layer.K, layer.A, layer.scale, mask, self.dtype, kv_head, M=layer.M)
        W_O = output_projection(self.model, layer.module, H * layer.V.shape[-1])
        if self.with_w_o is None:
            self.with_w_o = W_O is not None
        if self.with_w_o != (W_O is not None):
            raise Unsupported(f"layer {idx}: {'no' if W_O is None else 'an'} output projection, unlike the first")
        arrays: dict[str, Any] = {"Q": ByHead(layer.Q), "K": ByHead(layer.K), "V": ByHead(layer.V)}
        if W_O is not None:
            arrays["W_O"] = W_O
        if self.keep_A:
            arrays["A"] = ByHead(layer.A)
        if MASK_KINDS[mask[0]].stored:
            arrays["M"] = layer.M
        self.writer.add(i, arrays)
        self.scales[i], self.masks[i] = layer.scale, kind
        self.shape = self.shape or (H, H_kv)

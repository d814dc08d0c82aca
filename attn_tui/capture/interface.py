"""The attention function registered with transformers' AttentionInterface as "attn_tui_capture".

transformers calls it in every attention layer with what the layer's attention receives:

    query (B, H, T, d_k)  after the projections and rotary positions (RoPE) where the model has them
    key, value (B, H_kv, T', d)  not repeated for grouped heads (H_kv <= H)
    attention_mask  the additive mask (0 / dtype min) or None, scaling, and keyword arguments

It copies them out (batch 0) and hands the call on, unchanged, to the eager attention function
of the model's own modeling module (``eager_attention_forward``), so the model's outputs are the
model's. The matching mask function is transformers' own ``eager_mask`` (registered under the
same name with AttentionMaskInterface), so the layers get the masks their eager path gets.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch
from transformers import AttentionInterface, AttentionMaskInterface
from transformers.masking_utils import eager_mask

from ..core.mask_kinds import MASK_KINDS, NO_MASK, parse
from .check_torch import mask_kind

if TYPE_CHECKING:
    from typing import Any, Literal

NAME = "attn_tui_capture"
# Keyword arguments that change the attention's arithmetic in ways a softmax(scale·QKᵀ + M)
# cannot hold: a layer that passes one is refused, naming it.
SUPPORTED = "GPT-2, Llama/Mistral/Qwen2 and BERT families (models whose attention goes through AttentionInterface)"
UNSUPPORTED_KWARGS = ("softcap", "s_aux", "sinks", "attention_sinks", "alibi", "position_bias")


class Unsupported(ValueError):
    """The model's attention is something the multi-head file cannot hold; str(): one line."""


@dataclass
class Layer:
    """What one layer's attention received and returned (batch 0), as the model's own tensors on
    its device (views: no copy), handed to the sink and then let go. The sink checks them there
    (check_torch) and brings to the host only what the file needs."""

    Q: torch.Tensor  # (H, T, d_k)
    K: torch.Tensor  # (H_kv, T', d_k)
    V: torch.Tensor  # (H_kv, T', d_v)
    A: torch.Tensor  # (H, T, T') the model's own weights
    scale: float
    mask: str  # its kind: capture_check.mask_kind's names ("none" when the layer got no mask)
    M: np.ndarray | None  # (T, T') float64, the additive mask of a mask of kind "additive" only
    module: object = field(repr=False)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A tensor as a NumPy array on the CPU (a view of a CPU tensor's memory); bfloat16 (which
    NumPy lacks) as float32, exactly."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.cpu().numpy()


class ByHead:
    """A layer's (H, ...) tensor as the file takes it, one head at a time: each head is brought to the
    host as the file writes it (to_numpy of ``t[h]``), so the host never holds a whole layer's Q, K, V or
    A at once (issue 48: on a GPU, the host's peak). ``shape`` and ``dtype`` are the whole's, as a NumPy
    array's would be."""

    def __init__(self, t: torch.Tensor) -> None:
        self.t = t.detach()
        self.shape = tuple(self.t.shape)
        self.dtype = np.dtype(np.float32) if self.t.dtype == torch.bfloat16 else np.dtype(str(self.t.dtype)[6:])

    def __iter__(self) -> Any:
        return (to_numpy(self.t[h]) for h in range(self.shape[0]))


class MaskRows:
    """Rows of one sequence's mask (T, T') as float64 NumPy arrays (the explicit M of a mask of kind
    "additive", which the file keeps). Boolean masks (True = attend, transformers') read as 0 /
    float32's min."""

    def __init__(self, m: torch.Tensor) -> None:
        self.m, self.shape = m, tuple(m.shape)

    def __getitem__(self, rows: Any) -> Any:
        m = self.m[rows]
        if m.dtype == torch.bool:
            m = torch.where(m, 0.0, torch.finfo(torch.float32).min)
        a = to_numpy(m).astype(np.float64)
        a[np.isneginf(a)] = np.finfo(np.float32).min  # finite: the file holds numbers
        return a


class Recorder:
    """Hands one Layer per attention call of a forward pass to ``sink(layer_idx, layer)`` as the
    layer runs, and keeps only which layers came (the arrays are the sink's to keep or drop)."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.seen: set[int] = set()
        self.calls = 0
        self.problem: str | None = None
        self._kinds: dict[Any, Any] = {}  # a mask tensor's identity -> its kind: the layers share one mask

    def _mask(self, idx: Any, attention_mask: Any) -> Any:
        if attention_mask is None:
            return NO_MASK, None
        m = attention_mask[0]
        if m.dim() == 3:  # (1 or H, T, T'): one mask for every head is all a layer holds here
            if m.shape[0] != 1 and not bool((m == m[:1]).all()):
                self.problem = self.problem or f"layer {idx} has a different mask per head"
            m = m[0]
        key = (m.data_ptr(), tuple(m.shape), tuple(m.stride()), m.dtype, m.device)
        if key not in self._kinds:
            self._kinds[key] = mask_kind(m)  # on the mask's device: only the verdict comes back
        kind = self._kinds[key]
        parsed = parse(kind)
        assert parsed is not None  # mask_kind writes a kind of the table
        return kind, (MaskRows(m)[:] if MASK_KINDS[parsed[0]].stored else None)

    def record(
        self,
        module: Any,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attention_mask: Any,
        scaling: Any,
        kwargs: Any,
        attn_weights: Any,
    ) -> None:
        self.calls += 1
        idx = getattr(module, "layer_idx", None)
        if idx is None or idx in self.seen:
            what = "no layer_idx" if idx is None else f"a second attention call in layer {idx} (cross-attention)"
            self.problem = self.problem or f"{type(module).__name__} has {what}"
            return
        self.seen.add(idx)
        kind, M = self._mask(idx, attention_mask)
        layer = Layer(
            Q=query[0].detach(),
            K=key[0].detach(),
            V=value[0].detach(),
            A=attn_weights[0].detach(),
            scale=float(query.shape[-1] ** -0.5 if scaling is None else scaling),
            mask=kind,
            M=M,
            module=module,
        )
        self.sink(idx, layer)


_current: list[Recorder] = []  # the recorder of the forward pass running now (capture runs one at a time)


def eager_of(module: Any) -> Any:
    """The eager attention function of ``module``'s own modeling file, or None."""
    return getattr(sys.modules.get(type(module).__module__), "eager_attention_forward", None)


def attn_tui_capture(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: Any,
    scaling: Any | None = None,
    dropout: float = 0.0,
    **kwargs: Any,
) -> Any:
    """The registered function: record, then the model's own eager attention (its outputs)."""
    eager = eager_of(module)
    if eager is None:
        raise Unsupported(f"{type(module).__name__} has no eager attention function to hand the call to")
    bad = [k for k in UNSUPPORTED_KWARGS if kwargs.get(k) is not None] + (
        ["softcapping"] if getattr(module, "attn_logit_softcapping", None) else []
    )
    if bad:
        raise Unsupported(
            f"{type(module).__name__} passes {bad[0]}, which softmax(scale·QKᵀ + M) cannot hold; "
            f"capture supports {SUPPORTED}"
        )
    if query.shape[0] != 1:
        raise Unsupported(f"batch of {query.shape[0]}; capture takes one sequence")
    out, weights = eager(module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs)
    if _current and weights is not None:
        _current[-1].record(module, query, key, value, attention_mask, scaling, kwargs, weights)
    elif _current:
        _current[-1].problem = f"{type(module).__name__}'s eager attention returned no weights"
    return out, weights


def register() -> None:
    """Register the function and its mask under NAME (idempotent)."""
    AttentionInterface.register(NAME, attn_tui_capture)
    AttentionMaskInterface.register(NAME, eager_mask)


class recording:
    """``with recording(sink) as rec:`` each layer of the forward passes inside goes to sink."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink

    def __enter__(self) -> Recorder:
        register()
        _current.append(Recorder(self.sink))
        return _current[-1]

    def __exit__(self, *exc: object) -> Literal[False]:
        _current.pop()
        return False

"""The model's own next-token prediction at every position, kept in the captured file beside its
heads: the top K tokens' ids (indices into the file's ``top_tokens`` labels), probabilities and
logits (T, K), and, where the final norm's scale can be held fixed, ``top_readout`` (T, d_model):
the direction that takes a write at position t to the top token's logit, so each head's direct
share of it can be read from the file (core/heads/captured_top.py).

Never T x V logits at once: the forward is asked for the last position's logits only
(``logits_to_keep=1``, where the model's forward takes it), the final hidden state (T, d_model) is
kept by a hook, and the output layer is applied to CHUNK_BYTES of positions at a time, each chunk's
top K kept and its logits let go. The last position's logits from the model are the check that the
output layer alone makes the model's logits (a soft cap or a scale after it would not): when they
differ, no prediction is stored.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal


K = 10  # next tokens stored at each position (the k)
CHUNK_BYTES = 64 * 2**20  # logits held at once, float32: 64 MiB (333 positions of a 50,257-token vocabulary)
# why a capture stores no prediction, or no per-head parts: a code in the file's provenance, the words in the core
NO_HEAD, NOT_LOGITS, NO_NORM, SOME_LAYERS, NO_W_O = "no_lm_head", "logits", "norm", "layers", "w_o"


def output_layer(model: Any) -> Any:
    """The model's output layer (an nn.Linear-like with weight (V, d)), or None (AutoModel: no LM head)."""
    get = getattr(model, "get_output_embeddings", None)
    head = get() if get is not None else None
    w = getattr(head, "weight", None)
    return head if isinstance(w, torch.Tensor) and w.dim() == 2 and w.device.type != "meta" else None


def final_norm(model: Any) -> Any:
    """The base model's final norm: its one direct child whose class name says a norm (ln_f, norm), or None."""
    base = getattr(model, "base_model", None)
    if base is None or base is model:
        return None
    norms = [m for _, m in base.named_children() if "norm" in type(m).__name__.lower()]
    return norms[0] if len(norms) == 1 else None


class TopRecorder:
    """Hooks kept for one forward: the final hidden state (T, d) fed to the output layer, and the final
    norm's input and output. ``kwargs``: what the forward is given so that it makes one row of logits."""

    def __init__(self, model: Any) -> None:
        self.model, self.head, self.norm = model, output_layer(model), final_norm(model)
        self.hidden = self.x = self.y = None
        self.hooks: list[Any] = []  # the forward hooks, removed on exit
        params = inspect.signature(model.forward).parameters
        self.kwargs = {"logits_to_keep": 1} if self.head is not None and "logits_to_keep" in params else {}

    def __enter__(self) -> Any:
        if self.head is not None:
            self.hooks.append(self.model.base_model.register_forward_hook(self._base))
            if self.norm is not None:
                self.hooks.append(self.norm.register_forward_hook(self._norm))
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        for h in self.hooks:
            h.remove()
        return False

    def _base(self, module: Any, args: Any, out: Any) -> None:
        h = getattr(out, "last_hidden_state", None)
        self.hidden = (h if h is not None else out[0])[0].detach()

    def _norm(self, module: Any, args: Any, out: Any) -> None:
        self.x, self.y = args[0][0].detach(), out[0].detach()


def _tolerance(dtype: str) -> float:
    return 64 * float(torch.finfo(dtype).eps)


def store(
    rec: TopRecorder, out: Any, label: Callable[[int], str], has_all_heads: str | None
) -> tuple[dict[Any, Any], list[Any], dict[Any, Any]]:
    """(arrays, top_tokens, about): the file's top_* arrays, the labels their ids index, and what the
    provenance says of them ({"k": K, "by_head": None or why not} or {"none": why})."""
    if rec.head is None or rec.hidden is None:
        return {}, [], {"none": NO_HEAD}
    logits = getattr(out, "logits", None)
    h = rec.hidden.to(rec.head.weight.device)  # --device-map auto: the output layer may sit elsewhere
    T = h.shape[0]
    with torch.inference_mode():
        last = rec.head(h[-1:]).float()[0]
        # the same product, batched otherwise: a few roundings apart; a soft cap or a scale is far more
        atol = max(_tolerance(h.dtype), 1e-4) * (1 + float(last.abs().max()))
        if logits is None or not torch.allclose(logits[0, -1].float(), last, atol=atol):
            return {}, [], {"none": NOT_LOGITS}
        V = int(rec.head.weight.shape[0])
        k = min(K, V)
        step = max(1, CHUNK_BYTES // (4 * V))
        ids, p, lg = [], [], []
        for r0 in range(0, T, step):  # a chunk of positions at a time: never T x V
            chunk = rec.head(h[r0 : r0 + step]).float()
            top = torch.topk(chunk, k, dim=-1)  # the largest logits are the largest probabilities
            ids.append(top.indices.cpu())
            lg.append(top.values.cpu())
            p.append(torch.softmax(chunk, dim=-1).gather(-1, top.indices).cpu())
            del chunk
        ids, p, lg = torch.cat(ids), torch.cat(p), torch.cat(lg)
        readout, why = _readout(rec, ids[:, 0], has_all_heads)
    vocab = sorted(set(ids.flatten().tolist()))
    index = {v: i for i, v in enumerate(vocab)}
    local = np.vectorize(index.__getitem__, otypes=[np.int32])(ids.numpy())
    arrays = {"top_ids": local, "top_p": p.numpy().astype(np.float32), "top_logit": lg.numpy().astype(np.float32)}
    if readout is not None:
        arrays["top_readout"] = readout
    labels = [label(v) for v in vocab]  # labels.labeller: as the text's tokens are labelled
    about = {"k": k, "by_head": why, "centred": isinstance(rec.norm, torch.nn.LayerNorm), "vocab": vocab}
    return arrays, labels, about


def _readout(rec: TopRecorder, top: torch.Tensor, has_all_heads: str | None) -> Any:
    """(top_readout (T, d) float32 or None, why not): W_U[top_t] · w / σ_t, where the final norm is
    (x − mean x) / σ · w + b (LayerNorm) or x / σ · w (an RMS norm), checked against its own output."""
    if has_all_heads:
        return None, has_all_heads
    norm = rec.norm
    if norm is None or rec.x is None or not isinstance(getattr(norm, "weight", None), torch.Tensor):
        return None, NO_NORM
    x, y = rec.x.double(), rec.y.double()
    centred = isinstance(norm, torch.nn.LayerNorm)
    eps = getattr(norm, "eps", None) or getattr(norm, "variance_epsilon", None) or 0.0
    if centred:
        x = x - x.mean(-1, keepdim=True)
    inv = torch.rsqrt((x * x).mean(-1, keepdim=True) + float(eps))  # 1/σ at each position (T, 1)
    w = norm.weight.double()
    b = norm.bias.double() if getattr(norm, "bias", None) is not None else 0.0
    scaled = x * inv * w
    tol = 16 * float(torch.finfo(rec.x.dtype).eps)  # each entry, to the rounding of its terms (not of the largest)
    if ((scaled + b - y).abs() > tol * (scaled.abs() + abs(b) + 1)).any():
        return None, NO_NORM  # not a norm of this form (Gemma's 1 + w, say): its scale cannot be held as here
    W_U = rec.head.weight.detach()[top.to(rec.head.weight.device)].to(x.device).double()  # (T, d), the norm's device
    return (W_U * w * inv).cpu().numpy().astype(np.float32), None

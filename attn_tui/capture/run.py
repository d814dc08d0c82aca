"""One forward pass of a loaded model on one text, its heads written as a multi-head file and
checked by attn-tui's core against the model's own attention weights before the file exists.

    capture(model, tokenizer, text, ...) -> Captured   the arrays and settings of the file
    write_checked(captured, out)                       the check, then the file (atomically)
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from ..core.heads.capture_check import HeadsCheck, check_heads, mask_kind, token_label
from ..core.heads.multihead_io import _mask_kind, open_file
from ..core.heads.multihead_write import save_heads
from ..core.heads.source import HeadSource
from ..core.machine import spare_threads
from . import interface
from .interface import Unsupported

CHECK_THREADS = 4  # the check's threads at most (machine.spare_threads)
MAX_CAPTURE_T = 4096  # the file keeps the model's A: at most 2**24 cells a head (multihead_io.MAX_CELLS)


@dataclass
class Captured:
    """The arrays (Q, K, V, A, optional W_O, M) and settings of a capture. Each array is the list of
    its layers (Q[l] (H, T, d_k), ...), the model's own tensors' memory where they are the layer's
    as received: never stacked into one more [L, H, ...] copy (the file is written layer by layer)."""

    arrays: dict
    settings: dict
    dtype: str  # the dtype the model computed in
    layers: tuple  # the model's layer numbers, in the file's order
    provenance: dict = field(default_factory=dict)


class CaptureError(ValueError):
    """Bad input or an unsupported model; str(): one line."""


def _output_projection(model, module, width: int):
    """The layer's output projection as W_O (H·d_v, d_model) (o = concat · W_O), or None: the
    module's own (o_proj, c_proj, out_proj, dense), else its parent's output.dense (BERT)."""
    names = {m: n for n, m in model.named_modules()}
    candidates = [getattr(module, a, None) for a in ("o_proj", "c_proj", "out_proj", "dense")]
    parent_name = names.get(module, "").rpartition(".")[0]
    parent = model.get_submodule(parent_name) if parent_name else None
    candidates.append(getattr(getattr(parent, "output", None), "dense", None))
    for m in candidates:
        w = getattr(m, "weight", None)
        if not isinstance(w, torch.Tensor) or w.dim() != 2:
            continue
        W = w if type(m).__name__ == "Conv1D" else w.T  # Conv1D (GPT-2) is x @ W; nn.Linear is x @ Wᵀ
        if W.shape[0] == width:
            return interface.to_numpy(W)
    return None


def _layer_mask(layer: interface.Layer, T: int, T_k: int) -> str:
    """The layer's mask kind; None from the model means its eager function added no mask."""
    return "none" if layer.mask is None else mask_kind(layer.mask)


def tokenize(tokenizer, config, text: str, *, layers=None, model_id: str = ""):
    """The encoded text (batch of one), checked against the model's context and layers before any
    weight is loaded. CaptureError: one line."""
    enc = tokenizer(text, return_tensors="pt")
    T = int(enc["input_ids"].shape[1])
    name = model_id or "the model"
    if T == 0:
        raise CaptureError("TEXT: the tokenizer made no tokens of it")
    n_ctx = _context(config)
    if n_ctx is not None and T > n_ctx:
        raise CaptureError(f"TEXT: {T} tokens; {name} takes at most {n_ctx}")
    if T > MAX_CAPTURE_T:
        raise CaptureError(f"TEXT: {T} tokens; a capture keeps the model's A, at most {MAX_CAPTURE_T} tokens")
    n_layers = getattr(config, "num_hidden_layers", None)
    seen = set()
    for ly in layers or ():
        if ly in seen:
            raise CaptureError(f"--layers: layer {ly} is given twice")
        seen.add(ly)
        if n_layers is not None and not 0 <= ly < n_layers:
            raise CaptureError(f"--layers: {ly} is not a layer; {name} has layers 0..{n_layers - 1}")
    return enc


def capture(model, tokenizer, enc, *, layers=None, device: str = "cpu") -> Captured:
    """The forward pass of ``model`` (loaded with attn_implementation=interface.NAME, .eval()) on
    the encoded text, every (or the chosen) layer's heads kept. Unsupported: one line."""
    ids = enc["input_ids"]
    with interface.recording() as rec, torch.inference_mode():
        model(**{k: v.to(device) for k, v in enc.items()})
    n_layers = getattr(model.config, "num_hidden_layers", None) or len(rec.layers)
    if rec.problem:
        raise Unsupported(f"{rec.problem}; capture supports {interface.SUPPORTED}")
    if not rec.layers or sorted(rec.layers) != list(range(n_layers)):
        raise Unsupported(
            f"{type(model).__name__}: {len(rec.layers)} of {n_layers} layers went through transformers' "
            f"AttentionInterface; capture supports {interface.SUPPORTED}"
        )
    chosen = tuple(range(n_layers)) if layers is None else tuple(layers)
    recs = [rec.layers[ly] for ly in chosen]
    raw = [str(t) for t in tokenizer.convert_ids_to_tokens(ids[0].tolist())]
    return _assemble(model, recs, raw, ids[0].tolist(), chosen)


def _context(config):
    for key in ("max_position_embeddings", "n_positions", "n_ctx"):
        n = getattr(config, key, None)
        if isinstance(n, int) and n > 0:
            return n
    return None


def _assemble(model, recs, raw, ids, chosen) -> Captured:
    first = recs[0]
    H, T, _ = first.Q.shape
    H_kv, T_k, d_v = first.V.shape
    arrays = {name: [getattr(r, name) for r in recs] for name in ("Q", "K", "V", "A")}
    masks = [_layer_mask(r, T, T_k) for r in recs]
    if "additive" in masks:
        arrays["M"] = [r.mask if k == "additive" else np.zeros((T, T_k)) for r, k in zip(recs, masks)]
    W = [_output_projection(model, r.module, H * d_v) for r in recs]
    if all(w is not None for w in W):
        arrays["W_O"] = W
    settings = {
        "tokens": [token_label(t) for t in raw],
        "raw_tokens": raw,
        "kv_head": [h // (H // H_kv) for h in range(H)],  # transformers' repeat_kv
        "scale": [r.scale for r in recs],
        "mask": masks,
    }
    return Captured(arrays, settings, _dtype_name(model), chosen, {"token_ids": ids})


def _dtype_name(model) -> str:
    return str(next(model.parameters()).dtype).removeprefix("torch.")


def memory_source(c: Captured, title: str = "capture") -> HeadSource:
    """A HeadSource over the captured arrays in memory (what the file will hold), for the check."""
    a = c.arrays

    def read(name, layer, head=None):
        x = a[name][layer] if head is None else a[name][layer][head]
        return x if name == "A" else np.asarray(x, dtype=np.float64)  # A is only subtracted from: no copy

    floats = [a[k][0].dtype for k in "QKV"]
    return HeadSource(
        title=title,
        source="",
        tokens=tuple(c.settings["tokens"]),
        ids=tuple(c.settings["raw_tokens"]),
        key_tokens=(),
        shapes={k: (len(v), *v[0].shape) for k, v in a.items()},
        kv_head=tuple(c.settings["kv_head"]),
        scales=tuple(c.settings["scale"]),
        masks=tuple(_mask_kind(m, ly) for ly, m in enumerate(c.settings["mask"])),
        dtype=np.result_type(*floats).name,
        read=read,
    )


def check(c: Captured) -> HeadsCheck:
    """Every head recomputed by the core against the model's A (capture_check.check_heads), the
    heads shared by threads while cores are idle (machine.spare_threads), each on one BLAS thread:
    right after torch's forward pass its OpenMP threads still spin, and OpenBLAS's second thread
    fighting them made each head's Q Kᵀ 3x slower on 2 cores."""
    with threadpool_limits(1, user_api="blas"):
        return check_heads(memory_source(c), c.dtype, threads=spare_threads(CHECK_THREADS))


def write_checked(c: Captured, out, *, title: str, source: str, provenance: dict, result: HeadsCheck) -> Path:
    """Write the file (a temporary file beside ``out``, renamed over it once complete, so an
    interrupt leaves no partial file), then open it as any reader would."""
    out = Path(out)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial.safetensors", dir=out.parent)
    os.close(fd)
    try:
        save_heads(tmp, **c.arrays, **c.settings, title=title, source=source, provenance=provenance)
        open_file(tmp)  # the headers and settings read back as every reader reads them
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # a new file's usual mode, not mkstemp's 0600
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out

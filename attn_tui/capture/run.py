"""One forward pass of a loaded model on one text, each layer checked by attn-tui's core against
the model's own attention weights and written to the file as the pass goes (sink.py), the
file's header written last, once every head is known to hold.

    tokenize(tokenizer, config, text, ...)      the tokens, checked against the limits (limits.py)
    capture(model, tokenizer, enc, tmp, ...)    the forward pass into the file ``tmp`` -> Captured
    finish(captured, ...)                       the header, then the file read back as any reader does
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from ..core.heads.capture_check import HeadsCheck, combine_figures
from ..core.heads.layer_file import LayerFile
from ..core.heads.multihead_io import open_file
from ..core.token_bytes import BYTE_LEVEL
from . import interface
from .interface import Unsupported
from .labels import byte_level, labeller, token_labels
from .limits import check_shapes, check_tokens
from .sink import LayerSink
from .top import NO_W_O, SOME_LAYERS, K, TopRecorder, output_layer, store

if TYPE_CHECKING:
    from typing import Any


@dataclass
class Captured:
    """What the file holds besides its arrays (written already): settings, the check, where."""

    settings: dict[Any, Any]
    result: HeadsCheck
    dtype: str  # the dtype the model computed in
    layers: tuple[Any, ...]  # the model's layer numbers, in the file's order
    writer: LayerFile = field(repr=False)
    provenance: dict[Any, Any] = field(default_factory=dict)
    top: dict[Any, Any] = field(default_factory=dict, repr=False)  # the top_* arrays (top.py), written with the header


class CaptureError(ValueError):
    """Bad input or an unsupported model; str(): one line."""


def tokenize(
    tokenizer: Any,
    config: Any,
    text: str,
    *,
    layers: Any | None = None,
    model_id: str = "",
    dtype: str = "float32",
    keep_A: bool = False,
    free: Any | None = None,
) -> Any:
    """The encoded text (batch of one), checked against the model's context, the file's and the
    memory's limits (limits.check_tokens) and its layers before any weight is loaded.
    CaptureError: one line."""
    enc = tokenizer(text, return_tensors="pt")
    T = int(enc["input_ids"].shape[1])
    name = model_id or "the model"
    if T == 0:
        raise CaptureError("TEXT: the tokenizer made no tokens of it")
    n_ctx = _context(config)
    if n_ctx is not None and T > n_ctx:
        raise CaptureError(f"TEXT: {T} tokens; {name} takes at most {n_ctx}")
    problem = check_tokens(config, T, dtype, keep_A, free) or check_shapes(config, T, name)
    if problem:
        raise CaptureError(problem)
    n_layers = getattr(config, "num_hidden_layers", None)
    seen = set()
    for ly in layers or ():
        if ly in seen:
            raise CaptureError(f"--layers: layer {ly} is given twice")
        seen.add(ly)
        if n_layers is not None and not 0 <= ly < n_layers:
            raise CaptureError(f"--layers: {ly} is not a layer; {name} has layers 0..{n_layers - 1}")
    return enc


def _context(config: Any) -> Any:
    for key in ("max_position_embeddings", "n_positions", "n_ctx"):
        n = getattr(config, key, None)
        if isinstance(n, int) and n > 0:
            return n
    return None


def _reserve(
    labels: list[str], raw: list[Any], ids: list[Any], n_layers: int, n_heads: int, top_labels: int = 0
) -> int:
    """Header room for the metadata: the labels' and ids' JSON (twice: written as a JSON text inside
    a JSON string, each quote escaped), the check's figures and ``top_labels`` labels of the top tokens
    (64 bytes each: a longer one moves the data once, layer_file.LayerFile.finish), with room to spare."""
    text = json.dumps(labels) + json.dumps(raw) + json.dumps(ids)
    return 2 * len(text) + 2 * 64 * n_layers * n_heads + 64 * top_labels + 2**16


def capture(
    model: Any, tokenizer: Any, enc: Any, tmp: Any, *, layers: Any = None, device: Any = None, keep_A: bool = False
) -> Captured:
    """The forward pass of ``model`` (loaded with attn_implementation=interface.NAME, .eval()) on
    the encoded text, every (or the chosen) layer checked and written to ``tmp`` (an existing file,
    overwritten) as it comes. Unsupported: one line."""
    ids = enc["input_ids"]
    n_layers = getattr(model.config, "num_hidden_layers", None)
    chosen = tuple(range(n_layers or 0)) if layers is None else tuple(layers)
    raw = [str(t) for t in tokenizer.convert_ids_to_tokens(ids[0].tolist())]
    bytewise = byte_level(tokenizer, raw, ids[0].tolist())  # labels from the tokens' bytes (labels.py)
    labels = token_labels(raw, bytewise)
    heads = getattr(model.config, "num_attention_heads", None) or 64
    device = device or model.device
    head = output_layer(model)
    top_labels = 0 if head is None else min(K * len(raw), int(head.weight.shape[0]))
    writer = LayerFile(tmp, len(chosen), _reserve(labels, raw, ids[0].tolist(), len(chosen), heads, top_labels))
    try:
        sink = LayerSink(writer, model, chosen, _dtype_name(model), keep_A)
        with TopRecorder(model) as tops, interface.recording(sink) as rec, torch.inference_mode():
            out = model(**{k: v.to(device) for k, v in enc.items()}, **tops.kwargs)
        if rec.problem:
            raise Unsupported(f"{rec.problem}; capture supports {interface.SUPPORTED}")
        if not rec.seen or sorted(rec.seen) != list(range(n_layers or len(rec.seen))):
            raise Unsupported(
                f"{type(model).__name__}: {len(rec.seen)} of {n_layers} layers went through transformers' "
                f"AttentionInterface; capture supports {interface.SUPPORTED}"
            )
    except BaseException:
        writer.close()
        raise
    every = None if len(chosen) == (n_layers or len(chosen)) else SOME_LAYERS
    why_not = every or (None if sink.with_w_o else NO_W_O)
    arrays, top_tokens, about = store(tops, out, labeller(tokenizer, bytewise), why_not)
    del out
    assert sink.shape is not None  # rec.seen: every layer went through sink.write, which sets it
    H, H_kv = sink.shape
    settings = {
        "tokens": labels,
        "raw_tokens": raw,
        "kv_head": [h // (H // H_kv) for h in range(H)],  # transformers' repeat_kv
        "scale": [sink.scales[i] for i in range(len(chosen))],
        "mask": [sink.masks[i] for i in range(len(chosen))],
    }
    if arrays:
        settings["top_tokens"] = top_tokens
    result = combine_figures([sink.figures[i] for i in range(len(chosen))], H)
    prov = {"token_ids": ids[0].tolist(), "prediction": about, BYTE_LEVEL: bytewise}
    return Captured(settings, result, sink.dtype, chosen, writer, prov, arrays)


def _dtype_name(model: Any) -> str:
    return str(next(model.parameters()).dtype).removeprefix("torch.")


def finish(c: Captured, *, title: str, source: str, provenance: dict[Any, Any]) -> None:
    """The file's header (settings, title, source, provenance with the check's figures), then the
    file opened as any reader opens it."""
    settings = {**c.settings, "provenance": provenance}
    meta = {k: json.dumps(v) for k, v in settings.items()} | {"title": title, "source": source}
    try:
        c.writer.finish(meta, c.top)
    finally:
        c.writer.close()
    open_file(c.writer.path)  # the headers and settings read back as every reader reads them

"""A multi-head file's settings (tokens, key_tokens, kv_head, scale, mask, title, source, raw_tokens,
provenance), read and checked: JSON texts of a .safetensors file's metadata, 0-d / 1-D members of an
.npz (judged from their headers before one is read), a value per layer, the head -> K/V head map.
Each refusal is one line naming the setting (multihead_io's docstring says what each holds).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np

from .. import npz_members
from ..limits import printable, shown
from ..mask_kinds import choices_written, parse
from .multihead_shapes import ARRAYS, AXES, MAX_LAYERS

if TYPE_CHECKING:
    from typing import Any

SETTINGS: tuple[str, ...] = (
    "title",
    "source",
    "tokens",
    "key_tokens",
    "kv_head",
    "scale",
    "mask",
    "raw_tokens",
    "provenance",
)
SETTINGS += ("top_tokens",)  # the labels a capture's top_ids index (captured_top.py)


def json_setting(key: str, text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        if key in ("title", "source", "mask"):
            return text  # a bare word: mask = causal
        hint = {
            "provenance": "a JSON object",
            "kv_head": "a JSON list of head numbers",
            "scale": "a JSON number, or one per layer",
        }.get(key, "a JSON list of strings")
        raise ValueError(f"{key}: {shown(text)} is not JSON ({hint})") from None


def npz_setting(key: str, a: np.ndarray) -> Any:
    if a.ndim > 1:
        raise ValueError(f"{key}: a {a.ndim}-D array; a setting is one value or a 1-D list")
    return a.tolist()


def read_labels(key: str, value: Any, n: int, what: str) -> Any:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{key}: must be a list of strings")
    if len(value) != n:
        raise ValueError(f"{key}: {len(value)} labels for {n} {what}")
    return tuple(value)


def per_layer(key: str, value: Any, L: int) -> Any:
    values = value if isinstance(value, list) else [value]
    if len(values) == 1:
        values = values * L
    if len(values) != L:
        raise ValueError(f"{key}: {len(values)} values for {L} layers (give one, or one per layer)")
    return values


def read_mask_kind(text: str, layer: int) -> Any:
    """(kind, window or None) of a layer's stored mask text ("causal", "none", "additive", "window:W");
    ValueError naming the layer otherwise. The file door's reading, and a capture's of its own masks."""
    kind = parse(text)  # core/mask_kinds.py
    if kind is None:
        raise ValueError(f"mask: layer {layer} has {shown(text)}; use {choices_written()}")
    return kind


def read_scale(x: Any, layer: int) -> float:
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0
    if not ok:
        raise ValueError(f"scale: layer {layer} has {shown(x)}; a scale is a positive finite number")
    return float(x)


def read_kv_head(value: Any, H: np.ndarray, H_kv: Any) -> Any:
    if value is None:
        if H % H_kv:
            raise ValueError(f"kv_head: missing; {H} heads over {H_kv} K/V heads need the head -> K/V head map")
        return tuple(h // (H // H_kv) for h in range(H))
    if not isinstance(value, list) or len(value) != H:
        raise ValueError(f"kv_head: {shown(value)}; give one K/V head per query head ({H})")
    for h, kv in enumerate(value):
        if isinstance(kv, bool) or not isinstance(kv, int) or not 0 <= kv < H_kv:
            raise ValueError(f"kv_head: head {h} maps to {shown(kv)}; K/V heads are 0..{H_kv - 1}")
    return tuple(value)


def refuse_unknown(keys: Any) -> None:
    unknown = [k for k in keys if k not in SETTINGS]
    if unknown:
        raise ValueError(f"{printable(unknown[0])}: unknown setting; known: {', '.join(SETTINGS)}")


def judge_settings(small: dict[Any, Any], entries: dict[Any, Any]) -> None:
    """The .npz settings members from their headers, before one is read: labels by
    npz_members.label_kind (at most the largest side of any array, each not too wide), title and
    source by npz_members.setting_kind (0-d, a word), kv_head, scale, mask one value or one per
    layer or head (at most MAX_LAYERS, each a word or a number)."""
    for key, m in small.items():
        if key in ARRAYS:
            raise ValueError(f"{key}: a {len(m.shape)}-D array; {key} is {AXES[key]}")
    refuse_unknown(small)
    most = max((n for e in entries.values() for n in e.shape), default=0)
    for key, m in small.items():
        if key in ("tokens", "key_tokens"):
            npz_members.label_kind(m, most)
        elif key == "top_tokens":  # at most one label a stored next token
            npz_members.label_kind(m, math.prod(entries["top_ids"].shape) if "top_ids" in entries else 0)
        elif key in ("title", "source") or len(m.shape) == 0:
            npz_members.setting_kind(m)
        elif m.shape[0] > MAX_LAYERS:
            raise ValueError(f"{key}: {m.shape[0]:,} values; one per layer or head, at most {MAX_LAYERS}")
        else:
            npz_members.check_setting_chars(key, m.dtype.itemsize // 4 if m.dtype.kind == "U" else m.dtype.itemsize)

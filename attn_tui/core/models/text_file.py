"""The text model's weights file read and checked: safetensors (float32), the keys and metadata of
the contract in text.py, every shape against the metadata, before any array is used."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

META = ("n_layers", "n_heads", "d_model", "d_head", "n_ctx", "rope_base", "ln_eps")


def read_weights(path: Path, fmt: str, max_bytes: int) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """(arrays as float64, metadata) of the text model's file; ValueError: one line naming the file."""
    if not path.is_file():
        raise ValueError(f"{path.name}: the text model is not there ({path}); scripts/train_text_model.py writes it")
    if path.stat().st_size > max_bytes:
        raise ValueError(f"{path.name}: {path.stat().st_size:,} bytes, more than the text model's {max_bytes:,}")
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="np") as f:
            meta = dict(f.metadata() or {})
            _check_meta(path.name, meta, fmt)
            arrays = {k: np.asarray(f.get_tensor(k), dtype=np.float64) for k in f.keys()}  # noqa: SIM118
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001  (a damaged file: one line naming it)
        raise ValueError(f"{path.name}: not a readable safetensors file ({type(exc).__name__})") from None
    _check_shapes(path.name, arrays, meta)
    return arrays, meta


def _check_meta(name: str, meta: dict[Any, Any], fmt: str) -> None:
    if meta.get("format") != fmt:
        raise ValueError(f"{name}: format is {meta.get('format')!r}, not {fmt!r}")
    for key in META:
        try:
            ok = float(meta[key]) > 0
        except (KeyError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{name}: metadata {key} is {meta.get(key)!r}, not a positive number")


def expected_shapes(meta: dict[Any, Any], vocab: int) -> dict[Any, Any]:
    """Each key's shape under the metadata, with ``vocab`` tokens."""
    L, H, d, dh = (int(meta[k]) for k in ("n_layers", "n_heads", "d_model", "d_head"))
    shapes = {"embed": (vocab, d), "ln_final": (d,), "unembed": (d, vocab)}
    for i in range(L):
        shapes |= {f"layers.{i}.ln": (d,), f"layers.{i}.W_O": (H, dh, d)}
        shapes |= {f"layers.{i}.{w}": (H, d, dh) for w in ("W_Q", "W_K", "W_V")}
    return shapes


def _check_shapes(name: str, arrays: dict[Any, Any], meta: dict[Any, Any]) -> None:
    vocab = arrays["embed"].shape[0] if "embed" in arrays else 0
    want = expected_shapes(meta, vocab)
    for key, shape in want.items():
        got = arrays[key].shape if key in arrays else None
        if got != shape:
            raise ValueError(f"{name}: {key} has shape {got}, not {shape}")
        if not np.isfinite(arrays[key]).all():
            raise ValueError(f"{name}: {key} holds a value that is not finite")

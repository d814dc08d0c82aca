"""Writing multi-head scenario files (the format of multihead_io): np.savez or safetensors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..arrays_io import ST_DTYPES

if TYPE_CHECKING:
    from typing import Any

ST_NAMES = {np.dtype(v): k for k, v in ST_DTYPES.items()}  # float32 -> "F32"


def save_heads(
    path: str | Path,
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    *,
    W_O: np.ndarray | None = None,
    A: np.ndarray | None = None,
    M: np.ndarray | None = None,
    compressed: bool = False,
    **settings: Any,
) -> Path:
    """Write Q (L, H, T, d_k), K (L, H_kv, T', d_k), V (L, H_kv, T', d_v) and the optional W_O, A, M
    to ``path`` (.npz or .safetensors, by its suffix). Each array is one [L, ...] array or a list of
    its L layers (a .safetensors file is written from them without stacking: save_layers).
    ``settings``: tokens, key_tokens, kv_head, scale, mask, source, title (multihead_io's names);
    None values are left out."""
    path = Path(path)
    given = {"Q": Q, "K": K, "V": V, "W_O": W_O, "A": A, "M": M}
    arrays: dict[str, Any] = {k: a for k, a in given.items() if a is not None}  # an array or a list of layers
    settings = {k: v for k, v in settings.items() if v is not None}
    if path.suffix.lower() == ".safetensors":
        meta = {k: v if k in ("title", "source") else json.dumps(v) for k, v in settings.items()}
        save_layers(path, arrays, meta)
    else:
        arrays = {k: np.ascontiguousarray(np.stack(a) if isinstance(a, list) else a) for k, a in arrays.items()}
        small = {k: np.array(json.dumps(v) if isinstance(v, dict) else v) for k, v in settings.items()}  # no pickles
        members: dict[str, Any] = {**arrays, **small}  # names distinct from savez's own keyword (allow_pickle)
        (np.savez_compressed if compressed else np.savez)(path, **members)
    return path


def save_layers(path: str | Path, arrays: dict[Any, Any], metadata: dict[Any, Any]) -> Path:
    """A .safetensors file of ``arrays`` (name -> an [L, ...] array or a list of its L layers, one
    shape and dtype) and ``metadata`` (str -> str): the 8-byte header length, the JSON header
    (padded with spaces to 8 bytes), then each array's bytes, little-endian, layer after layer.
    Each layer is written from its own memory (a copy only when it is not C-contiguous), so a
    model's captured layers are never stacked into one more [L, ...] copy first."""
    header, pieces, at = {}, [], 0
    layers_of = {name: [np.asarray(x) for x in a] for name, a in arrays.items()}  # views, no copy
    for name, layers in sorted(layers_of.items(), key=lambda kv: -kv[1][0].itemsize):  # wide first: aligned
        first = layers[0]
        if any(x.shape != first.shape or x.dtype != first.dtype for x in layers):
            raise ValueError(f"{name}: its layers differ in shape or dtype")
        dtype = first.dtype.newbyteorder("<")  # the file's byte order (native here, swapped from big-endian)
        if dtype not in ST_NAMES:
            raise ValueError(f"{name}: dtype {first.dtype}; a multi-head file holds {', '.join(ST_DTYPES.values())}")
        n = len(layers) * first.nbytes
        header[name] = {"dtype": ST_NAMES[dtype], "shape": [len(layers), *first.shape], "data_offsets": [at, at + n]}
        pieces += [(x, dtype) for x in layers]
        at += n
    if metadata:
        header["__metadata__"] = dict(metadata)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for x, dtype in pieces:
            f.write(np.ascontiguousarray(x, dtype=dtype).data.cast("B"))  # .data: the array's memoryview
    return Path(path)

"""A multi-head .safetensors file written one layer at a time (what `attn-tui capture` writes as
the model's forward pass goes): no [L, H, ...] array is ever held, only the layer just received.

The layout is fixed by the first layer: each array's L layers are one contiguous region (the
format's [L, ...] tensor), the regions one after the other behind a header area reserved at the
start; layer l of an array is written at its region's offset + l · (one layer's bytes). The
header (shapes, offsets, and the metadata known only at the end: scales, masks, the check) is
written last, into the reserved area, padded with spaces as the format allows; a header larger
than the reservation moves the data once (never the case for the metadata of a capture, whose
size is bounded beforehand).

An optional array (M, the additive mask) whose need shows only in a later layer lives in the
last region: the layers before it are zeros (a hole in the file reads as zeros), and the region
is cut off at the end when no layer used it.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import TYPE_CHECKING

import numpy as np

from .multihead_write import ST_NAMES

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal

    import numpy.typing as npt


class LayerFile:
    """``with LayerFile(path, n_layers, reserve) as f: f.add(l, {"Q": ..., ...}) ...; f.finish(meta)``.

    ``add`` takes layer l's arrays (each one layer: Q (H, T, d_k), ...), in any order of l, each a NumPy
    array or an iterable of its slices along the first axis, in order, with the whole's ``shape`` and
    ``dtype`` (capture's ByHead: one head on the host at a time); every
    layer gives the same names with the same shapes and dtypes, but the ``optional`` ones (name ->
    (one layer's shape, dtype), e.g. M's ((T, T'), float64)), which a layer gives or not. ``reserve``:
    bytes of header room for the metadata (tokens, provenance: at least their JSON's length)."""

    def __init__(self, path: str | Path, n_layers: int, reserve: int, optional: dict[Any, Any] | None = None) -> None:
        self.path, self.n_layers, self.reserve = str(path), n_layers, reserve
        self.optional = {k: (tuple(s), np.dtype(d)) for k, (s, d) in (optional or {}).items()}
        self.f = open(self.path, "r+b")  # noqa: SIM115  (close() or __exit__)
        self.layout: dict[Any, Any] | None = (
            None  # name -> (dtype, one layer's shape, region offset, one layer's bytes)
        )
        self.data_at = 0  # where the data starts: 8 + the header's room
        self.used: set[Any] = set()  # the optional arrays some layer gave

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False

    def close(self) -> None:
        self.f.close()

    def _plan(self, arrays: dict[Any, Any]) -> None:
        """The regions: the first layer's arrays, widest dtype first (aligned), the optional ones last."""
        first = sorted((n for n in arrays if n not in self.optional), key=lambda n: -arrays[n].dtype.itemsize)
        specs = {n: (arrays[n].shape, arrays[n].dtype) for n in first} | self.optional
        room = 96 * (len(specs) + 1) + self.reserve  # a tensor's entry in the header is < 96 bytes
        self.data_at = 8 + room + (-room % 8)
        self.layout, at = {}, 0
        for name, (shape, dtype) in specs.items():
            dtype = _file_dtype(name, dtype)
            n = int(np.prod(shape)) * dtype.itemsize
            self.layout[name] = (dtype, tuple(shape), at, n)
            at += n * self.n_layers

    def add(self, layer: int, arrays: dict[Any, Any]) -> None:
        if self.layout is None:
            self._plan(arrays)
        assert self.layout is not None  # _plan set it
        need = {n for n in self.layout if n not in self.optional}
        if not need <= set(arrays) <= set(self.layout):
            raise ValueError(f"layer {layer}: arrays {sorted(arrays)}; every layer gives {sorted(need)}")
        for name, a in arrays.items():
            dtype, shape, region, n = self.layout[name]
            if a.shape != shape:
                raise ValueError(f"{name}: layer {layer} has shape {a.shape}, the file's layers {shape}")
            self.f.seek(self.data_at + region + layer * n)
            wrote = 0
            for part in (a,) if isinstance(a, np.ndarray) else a:  # an array, or its slices along axis 0 in order
                wrote += self.f.write(np.ascontiguousarray(part, dtype=dtype).data.cast("B"))  # .data: a memoryview
            if wrote != n:
                raise ValueError(f"{name}: layer {layer}'s parts hold {wrote} bytes, the file's layers {n}")
        self.used |= set(arrays) & set(self.optional)

    def finish(self, metadata: dict[Any, Any], whole: dict[Any, Any] | None = None) -> None:
        """The header (every array's [L, ...] shape and offsets, ``metadata`` str -> str) at the start,
        the file cut where its last array ends; an optional array no layer gave is left out. ``whole``:
        arrays that are not a layer's (the prediction's (T, k)), written whole after the layers'."""
        assert self.layout is not None  # finish follows the layers' add (run checks some came)
        header, end = {}, 0
        for name, (dtype, shape, region, n) in self.layout.items():
            if name in self.optional and name not in self.used:
                continue  # the optional arrays are last: nothing after them to keep
            end = region + n * self.n_layers
            header[name] = {"dtype": ST_NAMES[dtype], "shape": [self.n_layers, *shape], "data_offsets": [region, end]}
        self.f.truncate(self.data_at + end)
        for name, a in (whole or {}).items():
            a = np.ascontiguousarray(a, dtype=_file_dtype(name, a.dtype))
            end += -end % 8  # each array aligned
            self.f.seek(self.data_at + end)
            self.f.write(a.data.cast("B"))
            header[name] = {"dtype": ST_NAMES[a.dtype], "shape": list(a.shape), "data_offsets": [end, end + a.nbytes]}
            end += a.nbytes
        header["__metadata__"] = dict(metadata)
        text = json.dumps(header, separators=(",", ":")).encode()
        room = self.data_at - 8
        self.f.truncate(self.data_at + end)
        if len(text) > room:  # not for a capture (its metadata is bounded beforehand): move the data once
            self._move_data(text)
            return
        self.f.seek(0)
        self.f.write(room.to_bytes(8, "little") + text + b" " * (room - len(text)))
        self.f.flush()

    def _move_data(self, text: bytes) -> None:
        text += b" " * (-len(text) % 8)
        tmp = self.path + ".move"
        with open(tmp, "wb") as out:
            out.write(len(text).to_bytes(8, "little") + text)
            self.f.seek(self.data_at)
            shutil.copyfileobj(self.f, out, 2**24)
        os.replace(tmp, self.path)


def _file_dtype(name: str, dtype: npt.DTypeLike) -> np.dtype:
    dtype = np.dtype(dtype).newbyteorder("<")
    if dtype not in ST_NAMES:
        raise ValueError(f"{name}: dtype {dtype}; a multi-head file holds {', '.join(map(str, ST_NAMES))}")
    return dtype

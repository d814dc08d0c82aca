"""Multi-head scenario files (.safetensors, .npz): L layers x H heads of one sequence, opened lazily.

Arrays (C-ordered; float16/32/64 or integers):
    Q (L, H, T, d_k)       post-projection (post-RoPE) queries of every head
    K (L, H_kv, T', d_k)   keys; V (L, H_kv, T', d_v) values; H_kv = H, or fewer for grouped heads
    W_O (L, H·d_v, d_model) optional output projection per layer
    A (L, H, T, T')        optional: the model's own attention weights, to check against
    M (L, T, T')           the additive mask of the layers whose mask is "additive"
Settings (safetensors: JSON texts in the metadata; .npz: 0-d / 1-D arrays), all optional:
    tokens (T labels), key_tokens (T'), kv_head (H: head h reads K/V head kv_head[h]; default
    h // (H / H_kv), transformers' repeat_kv), scale (one number or one per layer; default 1/√d_k),
    mask (one kind or one per layer: "causal" | "none" | "window:W" | "additive"; default causal),
    source, title; from `attn-tui capture`: raw_tokens (T: the tokenizer's own tokens, markers such
    as Ġ kept) and provenance (a JSON object: model, revision, dtype, versions, the check; byte_level:
    true when the tokenizer is a byte-level BPE, so the token view draws the text from the raw tokens'
    bytes, a character split over tokens drawn once).

Opening reads the headers only and checks every shape against the others and the settings
(layer count, head map, token labels); one head's Q, K, V are read when it is asked for
(file_headers.read_slice). Every refusal is one line naming the array or setting.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..limits import BOUND, MAX_TITLE, printable, shown, unexpected
from ..mask_kinds import MASK_KINDS
from ..reader_sizes import stored_bytes
from ..token_bytes import BYTE_LEVEL, byte_level_bytes, drawn_texts
from .admission import admit_source
from .captured_top import TOP_ARRAYS, read_top
from .file_headers import MemberStreams, check_regular, npz_headers, read_settings, read_slice, safetensors_headers
from .multihead_settings import (
    json_setting,
    judge_settings,
    npz_setting,
    per_layer,
    read_kv_head,
    read_labels,
    read_mask_kind,
    read_scale,
    refuse_unknown,
)
from .multihead_shapes import check_shapes
from .source import HeadSource

if TYPE_CHECKING:
    from typing import Any

MAX_FILE = 64 * 2**30  # read lazily: only the headers and one head at a time


class FileReader:
    """read(name, layer, head=None) -> float64 slice of a file's array; bytes_read counts what was read."""

    def __init__(self, path: str | Path, entries: dict[Any, Any]) -> None:
        self.path, self.entries, self.bytes_read = str(path), entries, 0
        self.streams = MemberStreams()  # a compressed .npz's members, read on from the last slice

    def __call__(self, name: str, layer: int, head: int | None = None) -> Any:
        try:
            return self._read(name, layer, head)
        except ValueError as exc:
            raise ValueError(f"{printable(self.path)}: {printable(exc)}") from None
        except OSError as exc:  # the file went away or became unreadable after it was opened
            raise ValueError(f"{printable(self.path)}: cannot read {name} ({exc.strerror})") from None
        except Exception as exc:  # noqa: BLE001  (the backstop, as the single-head door's: one line naming the file)
            raise ValueError(f"{printable(self.path)}: cannot read {name} ({unexpected(exc)})") from None

    def _read(self, name: str, layer: int, head: int | None) -> Any:
        e = self.entries[name]
        index = (layer,) if head is None else (layer, head)
        a = read_slice(self.path, e, index, self.streams)
        self.bytes_read += a.nbytes
        a = a.astype(np.float64)
        if name in ("Q", "K", "V", "W_O", "top_readout"):  # finite and within the doors' bound (A may hold NaN rows)
            bad = np.argwhere(~(np.abs(a) <= BOUND))
            if len(bad):
                if a.ndim == 1:  # row ``layer`` of top_readout (T, d)
                    r, c, cell = layer, int(bad[0][0]), a[bad[0][0]]
                    raise ValueError(f"{name}: row {r + 1}, column {c + 1} is {cell:g}; entries must be finite")
                r, c = (int(v) for v in bad[0][-2:])
                where = f"layer {layer}" + ("" if head is None else f", head {head}")
                cell = f"row {r + 1}, column {c + 1} is {a[r, c]:g}"
                raise ValueError(f"{name}: {where}, {cell}; entries must be finite, |x| <= {BOUND:g}")
        return a


def _provenance(settings: dict[Any, Any]) -> dict[Any, Any]:
    provenance = settings.get("provenance", {})
    if isinstance(provenance, str):  # an .npz keeps it as a JSON text
        provenance = json_setting("provenance", provenance)
    if not isinstance(provenance, dict):
        raise ValueError("provenance: must be a JSON object")
    return provenance


def _drawn(raw: tuple[Any, ...], provenance: dict[Any, Any]) -> tuple[Any, ...]:
    """A byte-level capture's text as the token view draws it (token_bytes.drawn_texts: a character split
    over tokens drawn once, where it completes), from its raw tokens; () for any other file."""
    if provenance.get(BYTE_LEVEL) is not True or not raw:
        return ()
    pieces = []
    for t, token in enumerate(raw):
        try:
            pieces.append(byte_level_bytes(token))
        except ValueError:
            raise ValueError(
                f"raw_tokens[{t}]: {shown(token)} is not a byte-level token, as provenance.byte_level says they are"
            ) from None
    return drawn_texts(pieces)


def build(path: str | Path, entries: dict[Any, Any], settings: dict[Any, Any], stored: int | None = None) -> HeadSource:
    """A HeadSource over ``entries`` (file_headers.Entry by name) and ``settings`` (Python values);
    ``stored``: the file's bytes on disk (reader_sizes.stored_bytes), which bound what a reader holds."""
    refuse_unknown(settings)
    for key, e in entries.items():
        if not (e.dtype.kind in "iu" or e.dtype.name in ("float16", "float32", "float64")):
            raise ValueError(
                f"{printable(key)}: {e.dtype.name} entries; arrays hold float16, float32, float64 or integers"
            )
    shapes = {k: e.shape for k, e in entries.items()}
    check_shapes(shapes, stored)
    (L, H, T, d_k), (_, H_kv, T_k, _) = shapes["Q"], shapes["K"]
    masks = tuple(read_mask_kind(m, ly) for ly, m in enumerate(per_layer("mask", settings.get("mask", "causal"), L)))
    additive = any(MASK_KINDS[k].stored for k, _ in masks)
    if additive != ("M" in shapes):
        raise ValueError(
            "M: an additive mask per layer goes with mask = additive"
            if additive is False
            else "M: missing; a layer with mask = additive reads its additive mask from M [L, T, T']"
        )
    scales = tuple(read_scale(x, ly) for ly, x in enumerate(per_layer("scale", settings.get("scale", d_k**-0.5), L)))
    tokens = read_labels("tokens", settings["tokens"], T, "query tokens (T)") if "tokens" in settings else None
    keys = read_labels("key_tokens", settings["key_tokens"], T_k, "key tokens (T')") if "key_tokens" in settings else ()
    raw = read_labels("raw_tokens", settings["raw_tokens"], T, "query tokens (T)") if "raw_tokens" in settings else ()
    provenance = _provenance(settings)
    floats = [e.dtype for k, e in entries.items() if k in "QKV" and e.dtype.kind == "f"]
    title = settings.get("title", Path(path).name)
    source = settings.get("source", "")
    if not isinstance(title, str) or not isinstance(source, str):
        raise ValueError(f"{'title' if not isinstance(title, str) else 'source'}: must be a string")
    labels = tokens or tuple(f"t{t}" for t in range(1, T + 1))
    return HeadSource(
        title=printable(title)[:MAX_TITLE] or "untitled",
        source=printable(source)[:MAX_TITLE],
        tokens=labels,
        ids=labels,
        key_tokens=keys,
        shapes=shapes,
        kv_head=read_kv_head(settings.get("kv_head"), H, H_kv),
        scales=scales,
        masks=masks,
        dtype=np.result_type(*floats).name if floats else "float64",
        read=FileReader(path, entries),
        raw_tokens=raw,
        drawn=_drawn(raw, provenance),
        provenance=provenance,
        top=_top(path, entries, settings, T, provenance),
    )


def _top(
    path: str | Path, entries: dict[Any, Any], settings: dict[Any, Any], T: int, provenance: dict[Any, Any]
) -> Any:
    """A capture's stored prediction, read whole ((T, k): small) and checked (captured_top.read_top), or None."""
    names = [n for n in TOP_ARRAYS if n in entries]
    labels = settings.get("top_tokens")
    if not names and labels is None:
        return None
    if labels is not None:
        most = math.prod(entries["top_ids"].shape) if "top_ids" in entries else 0
        if not isinstance(labels, list) or not 1 <= len(labels) <= most:
            raise ValueError(f"top_tokens: give one label for each token top_ids holds (1 to {most})")
        labels = read_labels("top_tokens", labels, len(labels), "stored next tokens")
    arrays: dict[str, np.ndarray | None] = {n: read_slice(path, entries[n], ()) for n in names}
    if "top_readout" in entries:
        arrays["top_readout"] = None  # read a row at a time (FileReader), when a prediction is shown
    about = provenance.get("prediction")
    centred = not isinstance(about, dict) or about.get("centred", True) is not False
    return read_top(arrays, labels, T, centred)


def open_file(path: str | Path) -> HeadSource:
    """The HeadSource of a .safetensors / .npz multi-head file; ValueError "<file>: <what is wrong>"."""
    name = printable(path)
    try:
        size = check_regular(path)
        if size > MAX_FILE:
            raise ValueError(f"larger than {MAX_FILE // 2**30} GiB")
        suffix = Path(path).suffix.lower()
        if suffix == ".safetensors":
            entries, meta = safetensors_headers(path, size)
            settings = {k: json_setting(k, v) for k, v in meta.items()}
        elif suffix == ".npz":
            entries, small = npz_headers(path, size)
            judge_settings(small, entries)
            settings = {k: npz_setting(k, a) for k, a in read_settings(path, size, small).items()}
        else:
            raise ValueError("a multi-head file is .safetensors or .npz")
        stored = stored_bytes(os.stat(path))  # what a reader may hold follows the bytes on disk (reader_sizes)
        return admit_source(build(path, entries, settings, stored))  # what every door refuses (admission.py)
    except ValueError as exc:
        raise ValueError(f"{name}: {printable(exc)}") from None
    except Exception as exc:  # noqa: BLE001  (the backstop, as the single-head door's: one line naming the file)
        raise ValueError(f"{name}: cannot be read ({unexpected(exc)})") from None


def is_heads_file(path: str | Path) -> bool:
    """True when ``path`` is an array file whose Q has 4 axes [L, H, T, d_k] (headers only). Never
    raises: a file whose headers are refused (or that is not a regular file) is False, and the
    single-head door (scenario_io.resolve) refuses it in one line, in the same words (the header
    checks are the same functions: arrays_io, npz_members)."""
    if not str(path).lower().endswith((".npz", ".safetensors")):
        return False
    try:
        size = check_regular(path)
        entries = (
            safetensors_headers(path, size) if str(path).lower().endswith(".safetensors") else npz_headers(path, size)
        )[0]
    except Exception:  # noqa: BLE001  (any refusal or unforeseen error: the single-head door says it)
        return False
    return "Q" in entries and len(entries["Q"].shape) == 4

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
    as Ġ kept) and provenance (a JSON object: model, revision, dtype, versions, the check).

Opening reads the headers only and checks every shape against the others and the settings
(layer count, head map, token labels); one head's Q, K, V are read when it is asked for
(file_headers.read_slice). Every refusal is one line naming the array or setting.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .. import npz_members
from ..limits import BOUND, MAX_TITLE, check_tokens, dim_limit, printable, shown, unexpected
from .admission import admit_source
from .file_headers import check_regular, npz_headers, read_settings, read_slice, safetensors_headers
from .source import HeadSource

ARRAYS = {"Q": 4, "K": 4, "V": 4, "W_O": 3, "A": 4, "M": 3}  # name -> number of axes
SETTINGS = ("title", "source", "tokens", "key_tokens", "kv_head", "scale", "mask", "raw_tokens", "provenance")
MAX_LAYERS = 1024  # layers of a file, and heads of a layer
MAX_CELLS = 2**24  # T x T' of a stored A or M per head or layer (128 MiB in float64)
MAX_FILE = 64 * 2**30  # read lazily: only the headers and one head at a time


class FileReader:
    """read(name, layer, head=None) -> float64 slice of a file's array; bytes_read counts what was read."""

    def __init__(self, path, entries: dict):
        self.path, self.entries, self.bytes_read = str(path), entries, 0

    def __call__(self, name, layer, head=None):
        try:
            return self._read(name, layer, head)
        except ValueError as exc:
            raise ValueError(f"{printable(self.path)}: {printable(exc)}") from None
        except OSError as exc:  # the file went away or became unreadable after it was opened
            raise ValueError(f"{printable(self.path)}: cannot read {name} ({exc.strerror})") from None
        except Exception as exc:  # noqa: BLE001  (the backstop, as the single-head door's: one line naming the file)
            raise ValueError(f"{printable(self.path)}: cannot read {name} ({unexpected(exc)})") from None

    def _read(self, name, layer, head):
        e = self.entries[name]
        index = (layer,) if head is None else (layer, head)
        a = read_slice(self.path, e, index)
        self.bytes_read += a.nbytes
        a = a.astype(np.float64)
        if name in ("Q", "K", "V", "W_O"):  # inputs: finite and within the doors' bound (A may hold NaN rows)
            bad = np.argwhere(~(np.abs(a) <= BOUND))
            if len(bad):
                r, c = (int(v) for v in bad[0][-2:])
                where = f"layer {layer}" + ("" if head is None else f", head {head}")
                cell = f"row {r + 1}, column {c + 1} is {a[r, c]:g}"
                raise ValueError(f"{name}: {where}, {cell}; entries must be finite, |x| <= {BOUND:g}")
        return a


def _json_setting(key, text):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        if key in ("title", "source", "mask"):
            return text  # a bare word: mask = causal
        raise ValueError(f"{key}: {shown(text)} is not JSON (labels: a JSON list of strings)") from None


def _npz_setting(key, a: np.ndarray):
    if a.ndim > 1:
        raise ValueError(f"{key}: a {a.ndim}-D array; a setting is one value or a 1-D list")
    return a.tolist()


def _strings(key, value, n, what):
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{key}: must be a list of strings")
    if len(value) != n:
        raise ValueError(f"{key}: {len(value)} labels for {n} {what}")
    return tuple(value)


def _per_layer(key, value, L):
    values = value if isinstance(value, list) else [value]
    if len(values) == 1:
        values = values * L
    if len(values) != L:
        raise ValueError(f"{key}: {len(values)} values for {L} layers (give one, or one per layer)")
    return values


def read_mask_kind(text, layer):
    """(kind, window or None) of a layer's stored mask text ("causal", "none", "additive", "window:W");
    ValueError naming the layer otherwise. The file door's reading, and a capture's of its own masks."""
    if text in ("causal", "none", "additive"):
        return text, None
    if isinstance(text, str) and text.startswith("window:") and text[7:].isdigit() and int(text[7:]) >= 1:
        return "window", int(text[7:])
    raise ValueError(f"mask: layer {layer} has {shown(text)}; use causal, none, window:W (W >= 1) or additive")


def _scale(x, layer):
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0
    if not ok:
        raise ValueError(f"scale: layer {layer} has {shown(x)}; a scale is a positive finite number")
    return float(x)


def _check_shapes(shapes: dict) -> None:
    for key, shape in shapes.items():
        if key not in ARRAYS:
            raise ValueError(f"{printable(key)}: unknown array; a multi-head file holds {', '.join(ARRAYS)}")
        if len(shape) != ARRAYS[key]:
            hint = " (a single head's 2-D Q, K, V open with --scenario FILE)" if key in "QKV" else ""
            raise ValueError(f"{key}: a {len(shape)}-D array of shape {shape}; {key} is {_AXES[key]}{hint}")
        if 0 in shape:
            raise ValueError(f"{key}: is empty (shape {shape})")
    for key in ("Q", "K", "V"):
        if key not in shapes:
            raise ValueError(f"{key}: missing; a multi-head file needs Q, K and V")
    (L, H, T, d_k), (Lk, H_kv, T_k, dk2), (Lv, Hv, Tv, d_v) = shapes["Q"], shapes["K"], shapes["V"]
    for key, got, want, what in (
        ("K", Lk, L, "layers"),
        ("V", Lv, L, "layers"),
        ("K", dk2, d_k, "columns (d_k)"),
        ("V", Hv, H_kv, "K/V heads"),
        ("V", Tv, T_k, "key tokens (T')"),
    ):
        if got != want:
            raise ValueError(f"{key}: {got} {what}, but {'Q' if key == 'K' or what == 'layers' else 'K'} has {want}")
    if H_kv > H:
        raise ValueError(f"K: {H_kv} K/V heads for {H} query heads; grouped heads share K/V, so H_kv <= H")
    if max(L, H) > MAX_LAYERS:
        raise ValueError(f"Q: {L} layers x {H} heads; at most {MAX_LAYERS} of each")
    check_tokens(T, T_k, True, ValueError, source="Q")
    d_model = shapes["W_O"][2] if "W_O" in shapes and len(shapes["W_O"]) == 3 else 0
    for key, d in (("Q", d_k), ("V", d_v), ("W_O", d_model)):
        if d > dim_limit(T, T_k):
            limit = dim_limit(T, T_k)
            raise ValueError(f"{key}: width {d}; with {max(T, T_k)} tokens d_model, d_k, d_v are at most {limit}")
    want = {"W_O": (L, H * d_v, None), "A": (L, H, T, T_k), "M": (L, T, T_k)}
    for key, w in want.items():
        if key in shapes and any(x is not None and x != y for x, y in zip(w, shapes[key])):
            raise ValueError(
                f"{key}: shape {shapes[key]}, but Q, K, V need {tuple('*' if x is None else x for x in w)}"
            )
        if key in ("A", "M") and key in shapes and T * T_k > MAX_CELLS:
            raise ValueError(f"{key}: {T} x {T_k} cells per head; a stored {key} is at most {MAX_CELLS:,} cells a head")


_AXES = {
    "Q": "[L, H, T, d_k]",
    "K": "[L, H_kv, T', d_k]",
    "V": "[L, H_kv, T', d_v]",
    "W_O": "[L, H·d_v, d_model]",
    "A": "[L, H, T, T']",
    "M": "[L, T, T']",
}


def _kv_head(value, H, H_kv):
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


def _unknown(keys) -> None:
    unknown = [k for k in keys if k not in SETTINGS]
    if unknown:
        raise ValueError(f"{printable(unknown[0])}: unknown setting; known: {', '.join(SETTINGS)}")


def _judge_settings(small: dict, entries: dict) -> None:
    """The .npz settings members from their headers, before one is read: labels by
    npz_members.label_kind (at most the largest side of any array, each not too wide), title and
    source by npz_members.setting_kind (0-d, a word), kv_head, scale, mask one value or one per
    layer or head (at most MAX_LAYERS, each a word or a number)."""
    for key, m in small.items():
        if key in ARRAYS:
            raise ValueError(f"{key}: a {len(m.shape)}-D array; {key} is {_AXES[key]}")
    _unknown(small)
    most = max((n for e in entries.values() for n in e.shape), default=0)
    for key, m in small.items():
        if key in ("tokens", "key_tokens"):
            npz_members.label_kind(m, most)
        elif key in ("title", "source") or len(m.shape) == 0:
            npz_members.setting_kind(m)
        elif m.shape[0] > MAX_LAYERS:
            raise ValueError(f"{key}: {m.shape[0]:,} values; one per layer or head, at most {MAX_LAYERS}")
        else:
            npz_members.check_setting_chars(key, m.dtype.itemsize // 4 if m.dtype.kind == "U" else m.dtype.itemsize)


def build(path, entries: dict, settings: dict) -> HeadSource:
    """A HeadSource over ``entries`` (file_headers.Entry by name) and ``settings`` (Python values)."""
    _unknown(settings)
    for key, e in entries.items():
        if not (e.dtype.kind in "iu" or e.dtype.name in ("float16", "float32", "float64")):
            raise ValueError(
                f"{printable(key)}: {e.dtype.name} entries; arrays hold float16, float32, float64 or integers"
            )
    shapes = {k: e.shape for k, e in entries.items()}
    _check_shapes(shapes)
    (L, H, T, d_k), (_, H_kv, T_k, _) = shapes["Q"], shapes["K"]
    masks = tuple(read_mask_kind(m, ly) for ly, m in enumerate(_per_layer("mask", settings.get("mask", "causal"), L)))
    additive = any(k == "additive" for k, _ in masks)
    if additive != ("M" in shapes):
        raise ValueError(
            "M: an additive mask per layer goes with mask = additive"
            if additive is False
            else "M: missing; a layer with mask = additive reads its additive mask from M [L, T, T']"
        )
    scales = tuple(_scale(x, ly) for ly, x in enumerate(_per_layer("scale", settings.get("scale", d_k**-0.5), L)))
    tokens = _strings("tokens", settings["tokens"], T, "query tokens (T)") if "tokens" in settings else None
    keys = _strings("key_tokens", settings["key_tokens"], T_k, "key tokens (T')") if "key_tokens" in settings else ()
    raw = _strings("raw_tokens", settings["raw_tokens"], T, "query tokens (T)") if "raw_tokens" in settings else ()
    provenance = settings.get("provenance", {})
    if isinstance(provenance, str):  # an .npz keeps it as a JSON text
        provenance = _json_setting("provenance", provenance)
    if not isinstance(provenance, dict):
        raise ValueError("provenance: must be a JSON object")
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
        kv_head=_kv_head(settings.get("kv_head"), H, H_kv),
        scales=scales,
        masks=masks,
        dtype=np.result_type(*floats).name if floats else "float64",
        read=FileReader(path, entries),
        raw_tokens=raw,
        provenance=provenance,
    )


def open_file(path) -> HeadSource:
    """The HeadSource of a .safetensors / .npz multi-head file; ValueError "<file>: <what is wrong>"."""
    name = printable(path)
    try:
        size = check_regular(path)
        if size > MAX_FILE:
            raise ValueError(f"larger than {MAX_FILE // 2**30} GiB")
        suffix = Path(path).suffix.lower()
        if suffix == ".safetensors":
            entries, meta = safetensors_headers(path, size)
            settings = {k: _json_setting(k, v) for k, v in meta.items()}
        elif suffix == ".npz":
            entries, small = npz_headers(path, size)
            _judge_settings(small, entries)
            settings = {k: _npz_setting(k, a) for k, a in read_settings(path, size, small).items()}
        else:
            raise ValueError("a multi-head file is .safetensors or .npz")
        return admit_source(build(path, entries, settings))  # what every door refuses (admission.py)
    except ValueError as exc:
        raise ValueError(f"{name}: {printable(exc)}") from None
    except Exception as exc:  # noqa: BLE001  (the backstop, as the single-head door's: one line naming the file)
        raise ValueError(f"{name}: cannot be read ({unexpected(exc)})") from None


def is_heads_file(path) -> bool:
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

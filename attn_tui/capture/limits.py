"""How long a text a capture takes, decided from the config and the token count before any
weight is loaded: the multi-head file's readers (MAX_T), a kept A's cells (--keep-A), and the
memory one layer's eager attention needs, against what the machine has free.

One layer's eager attention (the model's own eager_attention_forward, which the capture hands
every call to) holds, at its peak, two H x T x T' tensors: the scores and their softmax in
float32 (8 bytes a cell), or in a half dtype the scores (2), the float32 softmax (4) and, while
the check reads it, the weights as float32 (bfloat16: NumPy has no bfloat16) or the half weights
(6 at most). The layers run one after another and the capture keeps none of them, so one layer's
figure is the whole of it beside the model and the mask (T x T' in the model's dtype).
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from ..core.heads.multihead_shapes import MAX_CELLS
from ..core.limits import MAX_T
from ..core.reader_sizes import reader_problem

if TYPE_CHECKING:
    from typing import Any

BYTES_PER_CELL = {"float32": 8, "float16": 6, "bfloat16": 6}
MASK_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
PARAM_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}  # a weight's bytes in each dtype
GIB = 2**30


def eager_bytes(heads: int, T: int, dtype: str) -> int:
    """Bytes one layer's eager attention needs at its peak, with the model's mask (module docstring)."""
    return heads * T * T * BYTES_PER_CELL[dtype] + T * T * MASK_BYTES[dtype]


def available_bytes() -> int | None:
    """Memory the machine has free now (Linux: MemAvailable of /proc/meminfo), or None elsewhere."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def cuda_free_bytes() -> int | None:
    import torch

    try:
        return int(torch.cuda.mem_get_info()[0])
    except (RuntimeError, AssertionError):
        return None


def size(n: int) -> str:
    """Bytes in GiB (one decimal), MiB or KiB, whichever is the first at least 1."""
    for unit, scale in (("GiB", GIB), ("MiB", 2**20)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}" if unit == "GiB" else f"{n / scale:.0f} {unit}"
    return f"{n / 1024:.0f} KiB"


def heads_of(config: Any) -> int | None:
    for key in ("num_attention_heads", "n_head"):
        n = getattr(config, key, None)
        if isinstance(n, int) and n > 0:
            return n
    return None


def widths_of(config: Any) -> tuple[int, int, int] | None:
    """(H, d_head, d_model) of a model's attention from its config, or None when it does not say."""
    H = heads_of(config)
    d_model = getattr(config, "hidden_size", None) or getattr(config, "n_embd", None)
    if H is None or not isinstance(d_model, int) or d_model <= 0:
        return None
    d_head = getattr(config, "head_dim", None)
    d_head = d_head if isinstance(d_head, int) and d_head > 0 else d_model // H
    return H, d_head, d_model


def check_shapes(config: Any, T: int, name: str) -> str | None:
    """One line when the file this capture would write is one the project refuses to open
    (core.reader_sizes.reader_problem, the rule of every door), else None: asked before the forward."""
    widths = widths_of(config)
    if widths is None:
        return None
    H, d_head, d_model = widths
    problem = reader_problem(T, T, d_head, d_head, d_model, heads=H)
    return None if problem is None else f"{name}: its file of {T:,} tokens would be refused by every reader: {problem}"


def most_tokens(heads: int, dtype: str, free: int) -> int:
    """The longest text whose one layer's eager attention fits in ``free`` bytes."""
    per = heads * BYTES_PER_CELL[dtype] + MASK_BYTES[dtype]
    return int((free / per) ** 0.5)


def check_tokens(config: Any, T: int, dtype: str, keep_A: bool, free: int | None) -> str | None:
    """One line saying why T tokens cannot be captured, or None. ``free``: bytes free for the
    attention (free_bytes), None when not known (then memory is not judged)."""
    if T > MAX_T:
        return f"TEXT: {T:,} tokens; a multi-head file's readers take at most {MAX_T:,} (a shorter text)"
    if keep_A and T * T > MAX_CELLS:
        most = int(MAX_CELLS**0.5)
        return f"--keep-A: {T:,} tokens; a file keeps the model's A for at most {most:,} (leave out --keep-A)"
    heads = heads_of(config)
    if heads is None or dtype not in BYTES_PER_CELL:
        return None
    need = eager_bytes(heads, T, dtype)
    if free is None or need <= free:
        return None
    return (
        f"TEXT: T = {T:,}: one layer's eager attention needs {size(need)} ({heads} heads, {dtype}); "
        f"{size(free)} is free here, enough for at most {most_tokens(heads, dtype, free):,} tokens "
        f"(a shorter text)"
    )


def free_bytes(model_id: str, device: str) -> int | None:
    """Bytes free for the attention: the GPU's for cuda; else the machine's less the weight files
    of a local folder (they are loaded next), or None when not known."""
    if device == "cuda":
        return cuda_free_bytes()
    free = available_bytes()
    if free is None or not os.path.isdir(str(model_id)):
        return free
    folder = model_id
    weights = sum(e.stat().st_size for e in os.scandir(folder) if e.name.endswith(".safetensors") and e.is_file())
    return max(0, free - weights)


LAYER_NAME = re.compile(r"(?:^|\.)(?:layers|layer|h|blocks)\.(\d+)\.")
MAX_ST_HEADER = 100 * 2**20  # a safetensors header read to count the layers its weights hold


def parameters_of(config: Any) -> int | None:
    """About how many parameters a decoder or encoder of this config holds, from its sizes alone
    (embeddings, and per layer the attention's Q, K, V, O and the MLP), or None when it does not say:
    a bound to judge before any weight is loaded, not an exact count."""
    widths = widths_of(config)
    n_layers = getattr(config, "num_hidden_layers", None)
    if widths is None or not isinstance(n_layers, int):
        return None
    H, d_head, d = widths
    H_kv = getattr(config, "num_key_value_heads", None) or H
    d_ff = getattr(config, "intermediate_size", None) or getattr(config, "n_inner", None) or 4 * d
    vocab = getattr(config, "vocab_size", 0) or 0
    gated = 3 if getattr(config, "hidden_act", "") in ("silu", "swiglu") else 2
    per_layer = d * d_head * (2 * H + 2 * H_kv) + gated * d * d_ff
    return int(vocab * d + n_layers * per_layer)


def layers_in_weights(folder: str) -> tuple[int, str] | None:
    """(how many layers the .safetensors weights of ``folder`` hold, their file names), from the
    tensors' names in the headers (…layers.N… / …h.N…); None when not a folder or no name says."""
    if not os.path.isdir(folder):
        return None
    found, files = -1, list[str]()
    for e in sorted(os.scandir(folder), key=lambda e: e.name):
        if not (e.name.endswith(".safetensors") and e.is_file()):
            continue
        try:
            with open(e.path, "rb") as f:
                n = int.from_bytes(f.read(8), "little")
                names = json.loads(f.read(n)) if 0 < n <= MAX_ST_HEADER else {}
        except (OSError, ValueError):
            continue
        layers = [int(m.group(1)) for k in names for m in [LAYER_NAME.search(k)] if m]
        if layers:
            found, files = max(found, max(layers)), files + [e.name]
    return (found + 1, ", ".join(files)) if found >= 0 else None


def check_config(config: Any, model_id: str, dtype: str, device: str) -> str | None:
    """One line when the config describes a model that cannot be loaded here, before any weight is:
    more layers than its weights hold (a local folder), or parameters x bytes past the memory the
    machine (or the GPU, for cuda) has free now. None when it may load."""
    n_layers = getattr(config, "num_hidden_layers", None)
    present = layers_in_weights(str(model_id))
    if isinstance(n_layers, int) and present is not None and n_layers > present[0]:
        return (
            f"{model_id}: its config says {n_layers:,} layers, but its weights ({present[1]}) hold {present[0]:,}; "
            "a config and its weights go together"
        )
    params = parameters_of(config)
    free = cuda_free_bytes() if device == "cuda" else available_bytes()
    need = None if params is None else params * PARAM_BYTES.get(dtype, 4)
    if need is None or free is None or need <= free:
        return None
    return (
        f"{model_id}: its config describes about {params:,} parameters, {size(need)} in {dtype}; "
        f"{size(free)} is free here{' on the GPU' if device == 'cuda' else ''} "
        f"({'a smaller model' if dtype != 'float32' else 'a smaller model, or --dtype bfloat16'})"
    )

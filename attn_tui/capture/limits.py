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

import os

from ..core.heads.multihead_shapes import MAX_CELLS
from ..core.limits import MAX_T
from ..core.reader_sizes import reader_problem

BYTES_PER_CELL = {"float32": 8, "float16": 6, "bfloat16": 6}
MASK_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
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


def heads_of(config) -> int | None:
    for key in ("num_attention_heads", "n_head"):
        n = getattr(config, key, None)
        if isinstance(n, int) and n > 0:
            return n
    return None


def widths_of(config) -> tuple[int, int, int] | None:
    """(H, d_head, d_model) of a model's attention from its config, or None when it does not say."""
    H = heads_of(config)
    d_model = getattr(config, "hidden_size", None) or getattr(config, "n_embd", None)
    if H is None or not isinstance(d_model, int) or d_model <= 0:
        return None
    d_head = getattr(config, "head_dim", None)
    d_head = d_head if isinstance(d_head, int) and d_head > 0 else d_model // H
    return H, d_head, d_model


def check_shapes(config, T: int, name: str) -> str | None:
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


def check_tokens(config, T: int, dtype: str, keep_A: bool, free: int | None) -> str | None:
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

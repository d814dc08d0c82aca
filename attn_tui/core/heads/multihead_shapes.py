"""The arrays of a multi-head file and their shapes: which arrays there are and their axes (ARRAYS,
AXES), and ``check_shapes``, each array's shape checked against Q's, K's and V's (layers, heads, tokens,
widths) and against the limits, before any array is read. Each refusal is one line naming the array.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..limits import printable
from ..reader_sizes import reader_problem

if TYPE_CHECKING:
    from typing import Any

ARRAYS = {"Q": 4, "K": 4, "V": 4, "W_O": 3, "A": 4, "M": 3}  # name -> number of axes
ARRAYS |= {"top_ids": 2, "top_p": 2, "top_logit": 2, "top_readout": 2}  # a capture's prediction (captured_top.py)
MAX_LAYERS = 1024  # layers of a file, and heads of a layer
MAX_CELLS = 2**24  # T x T' of a stored A or M per head or layer (128 MiB in float64)
MAX_K = 64  # next tokens a file's prediction may hold at each position


def check_shapes(shapes: dict[Any, Any], stored: int | None = None) -> None:
    """Each array's shape against Q's, K's and V's and against the limits (reader_problem, with the
    file's ``stored`` bytes on disk when known), from the headers alone; ValueError naming the array."""
    for key, shape in shapes.items():
        if key not in ARRAYS:
            raise ValueError(f"{printable(key)}: unknown array; a multi-head file holds {', '.join(ARRAYS)}")
        if len(shape) != ARRAYS[key]:
            hint = " (a single head's 2-D Q, K, V open with --scenario FILE)" if key in "QKV" else ""
            raise ValueError(f"{key}: a {len(shape)}-D array of shape {shape}; {key} is {AXES[key]}{hint}")
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
    d_model = shapes["W_O"][2] if "W_O" in shapes and len(shapes["W_O"]) == 3 else 0
    problem = reader_problem(T, T_k, d_k, d_v, d_model, heads=H, stored=stored)  # the rule of every array-file door
    if problem:
        raise ValueError(f"{'W_O' if problem.startswith('W_O') else 'Q'}: {problem}")
    want = {"W_O": (L, H * d_v, None), "A": (L, H, T, T_k), "M": (L, T, T_k)}
    for key, w in want.items():
        if key in shapes and any(x is not None and x != y for x, y in zip(w, shapes[key])):
            raise ValueError(
                f"{key}: shape {shapes[key]}, but Q, K, V need {tuple('*' if x is None else x for x in w)}"
            )
        if key in ("A", "M") and key in shapes and T * T_k > MAX_CELLS:
            raise ValueError(f"{key}: {T} x {T_k} cells per head; a stored {key} is at most {MAX_CELLS:,} cells a head")

    check_top_shapes(shapes, T)


def check_top_shapes(shapes: dict[Any, Any], T: int) -> None:
    """top_ids, top_p, top_logit (T, k), alike, k <= MAX_K, before any is read; top_readout (T, d_model)
    goes with W_O's d_model and the top tokens it reads."""
    k = shapes.get("top_ids", (T, 1))[1]
    for key in ("top_ids", "top_p", "top_logit"):
        if key in shapes and (shapes[key] != (T, k) or k > MAX_K):
            raise ValueError(
                f"{key}: shape {shapes[key]}; the prediction's arrays are (T, k) = ({T}, 1..{MAX_K}), alike"
            )
    if "top_readout" not in shapes:
        return
    d = shapes["W_O"][2] if "W_O" in shapes else None
    if d is None or "top_ids" not in shapes or shapes["top_readout"] != (T, d):
        raise ValueError(
            f"top_readout: shape {shapes['top_readout']}; it is (T, d_model) = ({T}, W_O's d_model), "
            "with W_O and top_ids"
        )


AXES = {
    "Q": "[L, H, T, d_k]",
    "K": "[L, H_kv, T', d_k]",
    "V": "[L, H_kv, T', d_v]",
    "W_O": "[L, H·d_v, d_model]",
    "A": "[L, H, T, T']",
    "M": "[L, T, T']",
    "top_ids": "[T, k]",
    "top_p": "[T, k]",
    "top_logit": "[T, k]",
    "top_readout": "[T, d_model]",
}

"""What a captured model's heads need from the core, in NumPy: the mask kind of a model's mask,
readable token labels, and the check of every head's A against the model's own.

The check recomputes each head's A with the core (source.weights_block, float64) from the
captured Q, K, the layer's scale and mask, and compares it with the attention weights the model
itself returned for that head. The difference allowed is derived from the model's dtype (module
``allowed_diff``), so a capture whose heads are not the model's (a wrong mask, scale or head map)
is refused while float rounding is not. `attn-tui capture` runs the same check in torch on the
model's device (attn_tui/capture/check_torch.py); this NumPy one is its oracle (tested to agree),
and the check of a file that keeps A (`attn-tui heads`).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..labeltext import token_label as token_label  # noqa: F401  (capture/run.py and prediction.py read it here)
from ..mask_kinds import MASK_KINDS, NO_MASK, STORED, rule_of, written
from .source import HeadSource, layer_qk, own_weights_diffs

if TYPE_CHECKING:
    from typing import Any

# Unit roundoff u of the dtype a model computes in (half the gap between 1 and the next number).
UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}
BLOCKED = -1e4  # an additive mask entry at or below this blocks its key (source.SEEN)


def mask_kind(M: np.ndarray, rows: int = 256) -> str:
    """The kind of a model's additive mask M (T, T') for one sequence: "causal", "none",
    "window:W" (causal, each query sees itself and the W - 1 keys before it) or "additive" (any
    other pattern, or allowed entries that are not 0: kept as the explicit M). ``M``: an array, or
    anything with ``shape`` whose row slices M[r0:r1] are arrays; read ``rows`` rows at a time, so
    a 16,384-token mask costs a block, not a copy."""
    T, T_k = M.shape
    W = int((np.asarray(M[T - 1 : T]) > BLOCKED).sum())  # the last row sees its window whole
    # the table's rule kinds that hide keys, each with its width, while every row block fits it
    fits = {
        name: W if kind.windowed else None
        for name, kind in MASK_KINDS.items()
        if kind.rule is not None and kind.hides and T == T_k and (W >= 1 or not kind.windowed)
    }
    blocked_any = False
    i = np.arange(T_k)[None, :]
    for r0 in range(0, T, rows):
        block = np.asarray(M[r0 : r0 + rows])
        blocked = block <= BLOCKED
        if np.any(block[~blocked] != 0):
            return STORED
        blocked_any = blocked_any or bool(blocked.any())
        t = np.arange(r0, r0 + len(block))[:, None]
        fits = {name: w for name, w in fits.items() if np.array_equal(blocked, rule_of(name)(t, i, w))}
    if not blocked_any:
        return NO_MASK
    return written(*next(iter(fits.items()))) if fits else STORED  # the first in the table's order


# Byte-level BPE (GPT-2, Llama 3, Qwen) writes each byte as a printable character; these are the
# ones that stand for whitespace. SentencePiece writes a space as U+2581.
def allowed_diff(dtype: str, d_k: int, T_k: int, bound: float, score_max: float | None = None) -> float:
    """The largest |A_core - A_model| rounding can explain for one head, A's entries in [0, 1].

    The model computes S = scale·Q Kᵀ in ``dtype``: each dot product of d_k terms accumulated in
    float32 or wider (what CPU and CUDA kernels do for float16/bfloat16 too) is off by at most
    γ_{d_k}(u32)·bound, where bound ≥ scale·Σ_k |q_k||k_k| for every query and key
    (Cauchy-Schwarz: scale·max‖q‖·max‖k‖); rounding the product and the scaling to ``dtype`` adds
    2u·|S| ≤ 2u·score_max (``score_max``: max |S| of the head, else bound). An error δ in a row's
    scores moves each weight by a factor at most e^{2δ}, so by at most expm1(2δ). The softmax
    itself sums T' terms in float32 or wider ((T' + 4)·u32: exp, sum, divide) and the weights are
    rounded to ``dtype`` once (u). The core's float64 recompute adds nothing that shows here."""
    u, u32 = UNIT_ROUNDOFF[dtype], UNIT_ROUNDOFF["float32"]
    gamma = d_k * u32 / (1 - d_k * u32)
    delta = gamma * bound + 2 * u * (bound if score_max is None else score_max)
    return min(1.0, math.expm1(2 * delta) + (T_k + 4) * u32 + u)


def score_max(Q: np.ndarray, K: np.ndarray, scale: float, rows: int = 256) -> float:
    """max |scale·Q Kᵀ| of one head (Q (T, d_k), K (T', d_k)), in row blocks."""
    return max(float(np.abs(Q[r : r + rows] @ K.T).max()) for r in range(0, len(Q), rows)) * scale


@dataclass(frozen=True)
class HeadsCheck:
    """Every head's A recomputed by the core against the model's own: the worst difference,
    where it is, and whether each head is within its own allowed_diff."""

    max_abs_diff: float
    worst: tuple[Any, ...]  # (layer, head) of max_abs_diff, from 0
    allowed_at_worst: float
    n_layers: int
    n_heads: int
    failed: tuple[Any, ...]  # ((layer, head, diff, allowed), ...) of heads past their allowance
    by_head: tuple[Any, ...] = ()  # (L, H) max |ΔA| of each head (kept in a capture's provenance: dA_by_head)

    @property
    def holds(self) -> bool:
        return not self.failed

    def line(self) -> str:
        """checked against the model: max |ΔA| 4e-08 over 12 × 12 heads (allowed 3.1e-05 there)."""
        return (
            f"{CheckFigure(self.max_abs_diff, self.n_layers, self.n_heads).words()}"
            f" (allowed {self.allowed_at_worst:.2g} at layer {self.worst[0]}, head {self.worst[1]})"
        )


@dataclass(frozen=True)
class CheckFigure:
    """The figure of a check, in words for a line of each width."""

    max_abs_diff: float
    n_layers: int
    n_heads: int

    def words(self) -> str:
        """'checked against the model: max |ΔA| 4e-08 over 12 × 12 heads' (what the command prints)."""
        return f"checked against the model: max |ΔA| {self.max_abs_diff:.1g} over {self.heads()}"

    def heads(self) -> str:
        return f"{self.n_layers} × {self.n_heads} heads"

    def brief(self) -> str:
        """'max |ΔA| 4e-08 vs the model over 12 × 12 heads' (a status line at 120 columns)."""
        return f"max |ΔA| {self.max_abs_diff:.1g} vs the model over {self.heads()}"

    def short(self) -> str:
        """'|ΔA| 4e-08 vs model' (80 columns)."""
        return f"|ΔA| {self.max_abs_diff:.1g} vs model"


def stored_check(src: HeadSource) -> CheckFigure | None:
    """The figure of the check a capture stored in ``src``'s provenance (``max_abs_dA``, written by
    `attn-tui capture` after checking every head of the file), or None when the file holds none:
    read, never recomputed, so a file made by hand shows no figure. The heads are the file's own."""
    figure: Any = src.provenance.get("max_abs_dA") if isinstance(src.provenance, dict) else None
    if not _figure(figure):
        return None  # absent, not a number, negative, NaN or infinite: not a figure a check wrote
    return CheckFigure(float(figure), src.n_layers, src.n_heads)


def stored_by_head(src: HeadSource) -> list[Any] | None:
    """Each head's max |ΔA| (L lists of H) as the capture's check found them (provenance ``dA_by_head``),
    or None when the file holds none that fits its L x H heads: a file without the model's A reports
    each head's figure as one with it does (report.heads_text)."""
    rows: Any = src.provenance.get("dA_by_head") if isinstance(src.provenance, dict) else None
    ok = isinstance(rows, list) and len(rows) == src.n_layers
    ok = ok and all(isinstance(r, list) and len(r) == src.n_heads for r in rows)
    ok = ok and all(_figure(x) for r in rows for x in r)
    return [[float(x) for x in r] for r in rows] if ok else None


def _figure(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and 0 <= x < math.inf


def check_heads(src: HeadSource, dtype: str, threads: int = 1) -> HeadsCheck:
    """Every head of ``src`` (which holds the model's own A) recomputed by the core and compared
    with A; the allowance of each head from ``dtype``, the dtype the model computed in.

    A layer's heads are computed together (source.own_weights_diffs); ``threads`` > 1 checks that
    many layers at once (NumPy's products and exponentials release the GIL). Each head's figures
    do not depend on it and they are combined in the heads' order: the result is the same."""
    if not src.has("A"):
        raise ValueError("A: missing; the check compares the model's own attention weights")
    layers = range(src.n_layers)
    if threads > 1 and src.n_layers > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            figures = list(pool.map(lambda layer: layer_figures(src, dtype, layer), layers))
    else:
        figures = [layer_figures(src, dtype, layer) for layer in layers]
    return combine_figures(figures, src.n_heads)


def combine_figures(figures: list[Any], n_heads: int) -> HeadsCheck:
    """The HeadsCheck of every layer's (diffs, allowances) (layer_figures), in the layers' order."""
    worst, where, allowed_worst, failed = -1.0, (0, 0), 0.0, []
    for layer, (diffs, allowances) in enumerate(figures):
        for head, (diff, allowed) in enumerate(zip(list(diffs), allowances)):
            if not diff <= allowed:  # NaN fails too
                failed.append((layer, head, diff, allowed))
            if diff > worst or math.isnan(diff):
                worst, where, allowed_worst = diff, (layer, head), allowed
    by_head = tuple(tuple(float(d) for d in diffs) for diffs, _ in figures)
    return HeadsCheck(worst, where, allowed_worst, len(figures), n_heads, tuple(failed), by_head)


def layer_figures(src: HeadSource, dtype: str, layer: int, rows: int = 64) -> tuple[np.ndarray, list[float]]:
    """(max |ΔA| of each head of ``layer``, the allowed_diff of each); ``rows``: query rows a block."""
    Q, K = layer_qk(src, layer)  # V plays no part in A
    scale = src.scales[layer]
    bounds = scale * np.linalg.norm(Q, axis=2).max(axis=1) * np.linalg.norm(K, axis=2).max(axis=1)
    # a half dtype's rounding of S is relative to |S|: worth one more product for a tighter bound
    half = UNIT_ROUNDOFF[dtype] > UNIT_ROUNDOFF["float32"]
    allowed = [
        allowed_diff(dtype, src.d_k, src.T_k, float(bounds[h]), score_max(Q[h], K[h], scale) if half else None)
        for h in range(src.n_heads)
    ]
    diffs = own_weights_diffs(src, layer, qkv=(Q, K), rows=rows)
    assert diffs is not None  # check_heads asks only of a source holding A
    return diffs, allowed

"""Each layer's check against the model's own A, in torch on the device where the model ran.

The same check as the core's (core.heads.capture_check.layer_figures, in NumPy float64, kept as
the oracle and compared with this one in the tests): every head's A recomputed as
softmax(scale·Q Kᵀ + M) from what the layer received and compared with the weights the model's
eager attention returned, the allowance of each head from the model's dtype (allowed_diff). Here
the scores are computed where the tensors already are, a block of query rows at a time, in
float64 where the device has it (CPU, CUDA), else float32, whose own rounding (allowed_diff of
float32) is then added to the allowance. Only the figures come to the host: no T x T' array.

A NaN fails (issue 52 item 9): a cell where exactly one of the two is NaN differs by NaN, and NaN
is past every allowance; a cell NaN in both (a fully masked row) agrees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

from ..core.heads.capture_check import BLOCKED as SEEN_ABOVE
from ..core.heads.capture_check import UNIT_ROUNDOFF, allowed_diff
from ..core.mask_kinds import MASK_KINDS, NO_MASK, STORED, written

if TYPE_CHECKING:
    from typing import Any

CHECK_BYTES = {"cpu": 64 * 2**20, "cuda": 512 * 2**20}  # a block of every head's scores: H x rows x T' x 8 bytes
BLOCKED = 1e9  # what the core adds to a blocked key's score (core.heads.source.mask_rows)


def mask_kind(m: torch.Tensor, rows: int | None = None) -> str:
    """capture_check.mask_kind (the oracle, tested to agree) of one sequence's mask m (T, T') where
    it lies: a boolean mask (True = attend, transformers') or an additive one, read a block of rows at
    a time, each block against the table's rule kinds (core/mask_kinds.py), in its order; only the
    verdict comes to the host. At 16,384 tokens the NumPy reading on the host took 1.8 s of a 4.2 s
    capture on an H200 (docs/CAPTURE.md); here it is a few passes of the device."""
    T, T_k = m.shape
    rows = rows or max(1, CHECK_BYTES.get(m.device.type, CHECK_BYTES["cpu"]) // (8 * T_k))

    def blocked_of(block: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        if block.dtype == torch.bool:
            return ~block, None
        return block <= SEEN_ABOVE, block  # -inf is blocked, NaN is not (and is not 0: stored)

    last = m[T - 1 : T]
    W = int(last.sum() if last.dtype == torch.bool else (last > SEEN_ABOVE).sum())  # the last row's window
    fits = {
        name: W if kind.windowed else None
        for name, kind in MASK_KINDS.items()
        if kind.rule is not None and kind.hides and T == T_k and (W >= 1 or not kind.windowed)
    }
    blocked_any = False
    i = torch.arange(T_k, device=m.device)[None, :]
    for r0 in range(0, T, rows):
        block = m[r0 : r0 + rows]
        blocked, values = blocked_of(block)
        if values is not None and bool((values.masked_fill(blocked, 0) != 0).any()):
            return STORED
        blocked_any = blocked_any or bool(blocked.any())
        t = torch.arange(r0, r0 + block.shape[0], device=m.device)[:, None]
        fits = {name: w for name, w in fits.items() if torch.equal(blocked, MASK_KINDS[name].rule(t, i, w))}
    if not blocked_any:
        return NO_MASK
    return written(*next(iter(fits.items()))) if fits else STORED  # the first in the table's order


def check_dtype(device: torch.device) -> torch.dtype:
    """float64 where the device computes it (CPU, CUDA), float32 elsewhere (Apple's MPS)."""
    return torch.float32 if device.type == "mps" else torch.float64


def _blocked(kind: str, window: Any, r0: int, r1: int, w: int, device: Any) -> torch.Tensor | None:
    """(r1 - r0, w) True where query rows r0..r1-1 may not see key j (core.attention.blocked_cells)."""
    if MASK_KINDS[kind].rule is None or not MASK_KINDS[kind].hides:
        return None
    t = torch.arange(r0, r1, device=device)[:, None]
    j = torch.arange(w, device=device)[None, :]
    return MASK_KINDS[kind].rule(t, j, window)  # the core's own rule, on tensors


def _weights(
    q: torch.Tensor,
    k: torch.Tensor,
    scale: float,
    block: tuple[int, int, int],
    mask: tuple[Any, ...],
    Mt: torch.Tensor | None,
    half: bool,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(softmax(scale·q kᵀ + M) of query rows r0..r1-1 and keys 0..w-1, max |scale·q kᵀ| of each head
    over every key when ``half``, else None). A causal block of a square layer is masked on its
    diagonal tile alone (keys before r0 are seen by every row: core.heads.source._causal_block)."""
    r0, r1, w = block
    kind, window = mask
    T_k = k.shape[1]
    S = torch.matmul(q[:, r0:r1], k[:, : (T_k if half else w)].transpose(1, 2))
    if scale != 1.0:  # layer_figures folds the scale into q once: one pass less over every block
        S.mul_(scale)
    top = S.abs().amax(dim=(1, 2)) if half else None
    if half and w < T_k:
        S = S[..., :w].contiguous()
    if Mt is not None:
        S.add_(Mt[r0:r1, :w])
    elif MASK_KINDS[kind].causal and q.shape[1] == T_k:
        tile = torch.ones(r1 - r0, w - r0, dtype=torch.bool, device=q.device).triu_(1)
        S[..., r0:w].masked_fill_(tile, -BLOCKED)
    else:
        blocked = _blocked(kind, window, r0, r1, w, q.device)
        if blocked is not None:
            S.masked_fill_(blocked, -BLOCKED)
    return torch.softmax(S, dim=-1), top


def layer_figures(
    Q: torch.Tensor,
    K: torch.Tensor,
    A: torch.Tensor,
    scale: float,
    mask: tuple[Any, ...],
    dtype: str,
    kv_head: Any,
    M: torch.Tensor | None = None,
    rows: int | None = None,
) -> tuple[np.ndarray, list[float]]:
    """(max |ΔA| of each head, the allowance of each) of one layer: Q (H, T, d_k), K (H_kv, T', d_k),
    A (H, T, T') as the model gave them (on its device); ``mask`` (kind, window) as the file keeps it;
    ``kv_head`` each query head's K/V head; ``M`` (T, T') the additive mask of kind "additive"."""
    device = Q.device
    ct = check_dtype(device)
    H, T, d_k = Q.shape
    T_k = K.shape[1]
    q = Q.detach().to(ct) * scale  # scale·Q once, not scale·(Q Kᵀ) in every block
    k = K.detach().to(ct)[torch.as_tensor(list(kv_head), device=device)]  # (H, T', d_k)
    half = UNIT_ROUNDOFF[dtype] > UNIT_ROUNDOFF["float32"]
    worst = torch.zeros(H, dtype=ct, device=device)
    smax = torch.zeros(H, dtype=ct, device=device)
    rows = rows or max(1, min(T, CHECK_BYTES.get(device.type, CHECK_BYTES["cpu"]) // (8 * H * T_k)))
    Mt = None if M is None else torch.as_tensor(M, device=device).to(ct)
    for r0 in range(0, T, rows):
        r1 = min(T, r0 + rows)
        w = min(r1, T_k) if MASK_KINDS[mask[0]].future and Mt is None else T_k
        D, top = _weights(q, k, 1.0, (r0, r1, w), mask, Mt, half)
        if top is not None:
            smax = torch.maximum(smax, top)
        own = A[:, r0:r1, :w]
        D.sub_(own)  # in place: the model's weights promoted to the check's dtype as they are read
        lo, hi = torch.aminmax(D.view(H, -1), dim=1)  # max |ΔA| in one pass (aminmax keeps NaN)
        most = torch.maximum(hi, -lo)
        if torch.isnan(most).any():  # rare: NaN in the model's A, or in both (a fully masked row: they agree)
            both = torch.isnan(_weights(q, k, 1.0, (r0, r1, w), mask, Mt, False)[0]) & torch.isnan(own)
            most = D.masked_fill_(both, 0.0).abs_().amax(dim=(1, 2))
        worst = torch.maximum(worst, most)  # maximum keeps NaN (fmax would drop it)
        if w < T_k:  # keys after the block's last row are blocked: the model's weights there are its error
            worst = torch.maximum(worst, A[:, r0:r1, w:].abs().amax(dim=(1, 2)).to(ct))
    # scale·max‖q‖·max‖k‖, with q already scale·Q
    bounds = torch.linalg.vector_norm(q, dim=2).amax(dim=1) * torch.linalg.vector_norm(k, dim=2).amax(dim=1)
    bounds, smax = bounds.cpu().tolist(), smax.cpu().tolist()
    allowed = [allowed_diff(dtype, d_k, T_k, bounds[h], smax[h] if half else None) for h in range(H)]
    if ct == torch.float32:  # the recompute's own rounding, in float32
        allowed = [a + allowed_diff("float32", d_k, T_k, bounds[h]) for h, a in enumerate(allowed)]
    return worst.cpu().numpy().astype(np.float64), allowed

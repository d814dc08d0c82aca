"""Each layer's check against the model's own A, in torch on the device where the model ran.

The same check as the core's (core.heads.capture_check.layer_figures, in NumPy float64, kept as
the oracle and compared with this one in the tests): every head's A recomputed as
softmax(scale·Q Kᵀ + M) from what the layer received and compared with the weights the model's
eager attention returned, the allowance of each head from the model's dtype (allowed_diff). Here
the scores are computed where the tensors already are, a block of query rows at a time (on CPU one
head's, the heads spread over torch's threads; elsewhere every head's at once), in float64 where
the device has it (CPU, CUDA), else float32, whose own rounding (allowed_diff of float32) is then
added to the allowance. Only the figures come to the host: no T x T' array.

A NaN fails (issue 52 item 9): a cell where exactly one of the two is NaN differs by NaN, and NaN
is past every allowance; a cell NaN in both (a fully masked row) agrees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..core.heads.capture_check import BLOCKED as SEEN_ABOVE
from ..core.heads.capture_check import UNIT_ROUNDOFF, allowed_diff
from ..core.mask_kinds import MASK_KINDS, NO_MASK, STORED, rule_of, written

# A block of the check: on CPU one head's CPU_ROWS query rows (its passes, exp, subtract, max, in
# cache; one head a block on one thread, the check alone of 16 heads at 4,096 tokens took 1.7 s of CPU
# at 64 rows, 1.4 at 128, 1.5 at 256, 2.3 at 512, and of 2 heads at 16,384 tokens 4.1 s at 32 rows,
# 3.5 at 128, 7.5 at 512: load 9 on 2 cores);
# elsewhere every head's scores at once, rows x T' x 8 bytes each, up to CHECK_BYTES (a few large kernels)
CPU_ROWS = 128
CHECK_BYTES = {"cuda": 512 * 2**20}
MASK_BYTES = {"cpu": 64 * 2**20, "cuda": 512 * 2**20}  # a block of the mask read by mask_kind: rows x T' x 8 bytes
BLOCKED = 1e9  # what the core adds to a blocked key's score (core.heads.source.mask_rows)


def mask_kind(m: torch.Tensor, rows: int | None = None) -> str:
    """capture_check.mask_kind (the oracle, tested to agree) of one sequence's mask m (T, T') where
    it lies: a boolean mask (True = attend, transformers') or an additive one, read a block of rows at
    a time, each block against the table's rule kinds (core/mask_kinds.py), in its order; only the
    verdict comes to the host. At 16,384 tokens the NumPy reading on the host took 1.8 s of a 4.2 s
    capture on an H200 (docs/CAPTURE.md); here it is a few passes of the device."""
    T, T_k = m.shape
    rows = rows or max(1, MASK_BYTES.get(m.device.type, MASK_BYTES["cpu"]) // (8 * T_k))

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
        fits = {name: w for name, w in fits.items() if torch.equal(blocked, rule_of(name)(t, i, w))}
    if not blocked_any:
        return NO_MASK
    return written(*next(iter(fits.items()))) if fits else STORED  # the first in the table's order


def check_dtype(device: torch.device) -> torch.dtype:
    """float64 where the device computes it (CPU, CUDA), float32 elsewhere (Apple's MPS)."""
    return torch.float32 if device.type == "mps" else torch.float64


def _hidden(
    kind: str, window: int | None, block: tuple[int, int, int], square: bool, device: torch.device
) -> tuple[int, torch.Tensor] | None:
    """(first key, (r1 - r0, w - first) True where query rows r0..r1-1 may not see key first + j), or
    None: what a rule kind hides of the block (core.attention.blocked_cells). A causal block of a
    square layer is masked on its diagonal tile alone (keys before r0 are seen by every row:
    core.heads.source._causal_block)."""
    r0, r1, w = block
    if MASK_KINDS[kind].rule is None or not MASK_KINDS[kind].hides:
        return None
    if MASK_KINDS[kind].causal and square:
        return r0, torch.ones(r1 - r0, w - r0, dtype=torch.bool, device=device).triu_(1)
    t = torch.arange(r0, r1, device=device)[:, None]
    j = torch.arange(w, device=device)[None, :]
    return 0, rule_of(kind)(t, j, window)  # the core's own rule, on tensors


def _weights(
    q: torch.Tensor,
    k: torch.Tensor,
    block: tuple[int, int, int],
    hidden: tuple[int, torch.Tensor] | None,
    Mt: torch.Tensor | None,
    half: bool,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(softmax(q kᵀ + M) (g, r1 - r0, w) of query rows r0..r1-1 and keys 0..w-1 of a group of g
    heads (q already scale·Q), max |q kᵀ| of each head over every key when ``half``, else None)."""
    r0, r1, w = block
    T_k = k.shape[1]
    S = torch.matmul(q[:, r0:r1], k[:, : (T_k if half else w)].transpose(1, 2))
    top = None
    if half:
        top = _most(S)  # max |S| without a copy of |S|
        if w < T_k:
            S = S[..., :w].contiguous()
    if Mt is not None:
        S.add_(Mt[r0:r1, :w])
    elif hidden is not None:
        first, tile = hidden
        S[..., first:w].masked_fill_(tile, -BLOCKED)
    return torch.softmax(S, dim=-1), top


def _most(x: torch.Tensor) -> torch.Tensor:
    """max |x| of each head of x (g, rows, keys), NaN where one is NaN (aminmax, amax keep NaN), no copy
    of x: one head in one pass (aminmax over the whole tensor; along a dimension, with a copy of the
    strided part of A, a 4,096-token layer's check on CPU took 2.4 s of CPU, against 1.55 s)."""
    if x.shape[0] == 1:
        lo, hi = torch.aminmax(x)
        return torch.maximum(hi, -lo).reshape(1)
    if x.is_contiguous():  # a GPU's block of every head: one pass along a dimension
        lo, hi = torch.aminmax(x.view(x.shape[0], -1), dim=1)
        return torch.maximum(hi, -lo)
    return torch.maximum(x.amax(dim=(1, 2)), -x.amin(dim=(1, 2)))


@dataclass(frozen=True, eq=False)
class _Check:
    """One layer's check as every block reads it: q = scale·Q (H, T, d_k) and each group's keys in
    the check's dtype, the model's A (H, T, T'), the mask (kind, window) or Mt (T, T'), rows a block."""

    q: torch.Tensor
    A: torch.Tensor
    mask: tuple[str, int | None]
    Mt: torch.Tensor | None
    half: bool  # a half dtype: max |S| of each head is wanted for its allowance
    rows: int


def _group_blocks(c: _Check, groups: list[range], keys: list[torch.Tensor]) -> list[list[torch.Tensor]]:
    """[(max |ΔA|, max |S|) of each head of a group] of the groups of heads ``groups`` (ranges, each
    with its keys (g, T', d_k)), a block of query rows at a time: the block's mask once, then each
    group's scores."""
    (_, T, T_k), ct = c.A.shape, c.q.dtype
    out = [[torch.zeros(len(g), dtype=ct, device=c.A.device) for _ in range(2)] for g in groups]
    for r0 in range(0, T, c.rows):
        r1 = min(T, r0 + c.rows)
        w = min(r1, T_k) if MASK_KINDS[c.mask[0]].future and c.Mt is None else T_k
        hidden = None if c.Mt is not None else _hidden(*c.mask, (r0, r1, w), T == T_k, c.A.device)
        for g, k, figs in zip(groups, keys, out):
            q, own = c.q[g.start : g.stop], c.A[g.start : g.stop, r0:r1, :w]
            D, top = _weights(q, k, (r0, r1, w), hidden, c.Mt, c.half)
            if top is not None:
                figs[1] = torch.maximum(figs[1], top)
            most = _most(D.sub_(own))  # in place: the model's weights promoted to the check's dtype as read
            if torch.isnan(most).any():  # rare: NaN in the model's A, or in both (a fully masked row: they agree)
                both = torch.isnan(_weights(q, k, (r0, r1, w), hidden, c.Mt, False)[0]) & torch.isnan(own)
                most = _most(D.masked_fill_(both, 0.0))
            figs[0] = torch.maximum(figs[0], most)  # maximum keeps NaN (fmax would drop it)
            if w < T_k:  # keys after the block's last row are blocked: the model's weights there are its error
                figs[0] = torch.maximum(figs[0], _most(c.A[g.start : g.stop, r0:r1, w:]).to(ct))
    return out


def _on_threads(run: Callable[[list[int]], Any], parts: list[list[int]], threads: int) -> list[Any]:
    """[run(part) for part in parts] on ``threads`` Python threads (torch's kernels release the GIL),
    each running torch's operations on one thread of its own, torch's own setting restored after.
    A block's operations split over OpenMP's threads cost more CPU than they saved: a 4,096-token
    layer's check in one-head blocks took 12.2 s of CPU on two (load 9), 1.4 s on one (docs/CAPTURE.md)."""
    before = torch.get_num_threads()

    def one(part: list[int]) -> Any:
        # this thread's setting (OpenMP's and MKL's are per thread); torch's default for new threads
        # changes with it and is given back below
        torch.set_num_threads(1)
        with torch.inference_mode():
            return run(part)

    try:
        if threads <= 1:
            return [one(p) for p in parts]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return list(pool.map(one, parts))
    finally:
        torch.set_num_threads(before)


def layer_figures(
    Q: torch.Tensor,
    K: torch.Tensor,
    A: torch.Tensor,
    scale: float,
    mask: tuple[str, int | None],
    dtype: str,
    kv_head: Sequence[int],
    M: np.ndarray | None = None,
    rows: int | None = None,
    heads: int | None = None,
) -> tuple[np.ndarray, list[float]]:
    """(max |ΔA| of each head, the allowance of each) of one layer: Q (H, T, d_k), K (H_kv, T', d_k),
    A (H, T, T') as the model gave them (on its device); ``mask`` (kind, window) as the file keeps it;
    ``kv_head`` each query head's K/V head; ``M`` (T, T') the additive mask of kind "additive".
    ``heads`` a block (on CPU 1, the heads spread over torch's threads; elsewhere all of them) and
    ``rows`` query rows a block (CPU_ROWS, CHECK_BYTES) change where the time goes, never the figures."""
    device, (H, T, d_k), T_k = Q.device, Q.shape, K.shape[1]
    ct = check_dtype(device)
    q = Q.detach().to(ct) * scale  # scale·Q once, not scale·(Q Kᵀ) in every block
    k_kv = K.detach().to(ct)  # (H_kv, T', d_k)
    kv = torch.as_tensor(list(kv_head), device=device)
    cpu = device.type == "cpu"
    heads = heads or (1 if cpu else H)
    groups = [range(h, min(H, h + heads)) for h in range(0, H, heads)]
    keys = [k_kv[kv[g.start : g.stop]] if len(g) > 1 else k_kv[kv_head[g.start]][None] for g in groups]  # a view
    budget = CHECK_BYTES.get(device.type, CHECK_BYTES["cuda"])
    rows = min(T, rows or (CPU_ROWS if cpu else max(1, budget // (8 * heads * T_k))))
    Mt = None if M is None else torch.as_tensor(M, device=device).to(ct)
    c = _Check(q, A, mask, Mt, UNIT_ROUNDOFF[dtype] > UNIT_ROUNDOFF["float32"], rows)
    threads = min(torch.get_num_threads(), len(groups)) if cpu else 1
    parts = [list(range(i, len(groups), threads)) for i in range(threads)]  # each thread's groups

    def run(part: list[int]) -> list[list[torch.Tensor]]:
        return _group_blocks(c, [groups[i] for i in part], [keys[i] for i in part])

    found = _on_threads(run, parts, threads) if cpu else [run(p) for p in parts]
    worst, smax = torch.zeros(H, dtype=ct), torch.zeros(H, dtype=ct)  # on the host: H figures each
    for part, figs in zip(parts, found):
        for i, (most, top) in zip(part, figs):
            g = slice(groups[i].start, groups[i].stop)
            worst[g], smax[g] = most.cpu(), top.cpu()
    # scale·max‖q‖·max‖k‖, with q already scale·Q
    bounds = torch.linalg.vector_norm(q, dim=2).amax(dim=1) * torch.linalg.vector_norm(k_kv, dim=2).amax(dim=1)[kv]
    bounds, smax = bounds.cpu().tolist(), smax.tolist()
    allowed = [allowed_diff(dtype, d_k, T_k, bounds[h], smax[h] if c.half else None) for h in range(H)]
    if ct == torch.float32:  # the recompute's own rounding, in float32
        allowed = [a + allowed_diff("float32", d_k, T_k, bounds[h]) for h, a in enumerate(allowed)]
    return worst.numpy().astype(np.float64), allowed

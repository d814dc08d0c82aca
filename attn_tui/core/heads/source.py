"""HeadSource: L layers x H heads of one sequence, each head's Q, K, V read only when asked for.

A source is backed by a reader: ``read(name, layer, head=None)`` returns one contiguous slice of
an [L, H, ...] array (the model's forward pass in memory, or a file read lazily by
multihead_io). Layers and heads count from 0; token positions inside a head count from 1.

Shapes: Q (L, H, T, d_k); K (L, H_kv, T', d_k); V (L, H_kv, T', d_v); head h reads K/V head
kv_head[h]; optional W_O (L, H·d_v, d_model), own A (L, H, T, T'), additive masks (L, T, T').
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..attention import DTYPES, MASKS, blocked_cells, softmax
from ..byte_cache import ByteCache
from ..cancel import check
from ..labeltext import shortened
from ..mask_kinds import MASK_KINDS, spoken
from ..models.tokenizer import InputError
from ..scenario import Scenario
from .readings import Readings, head_readings

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .captured_top import CapturedTop

SEEN = -1e4  # an additive mask entry at or below this blocks its key (for the entropy ceiling)
# mask blocks kept for the next head: 32 MiB (one of 256 rows x 16,384 keys is 36 MiB, computed each time)
MASK_CACHE_BYTES = 32 * 2**20
MASKS_KEPT = ByteCache(MASK_CACHE_BYTES)


@dataclass(frozen=True, eq=False)
class HeadSource:
    """What a heads screen asks: sizes and labels at once, one head's numbers on demand.

    masks: per layer ("causal" | "none" | "window" | "additive", window width or None).
    ids: the query tokens compared for the induction score; tokens: their labels on screen."""

    title: str
    source: str
    tokens: tuple[Any, ...]
    ids: tuple[Any, ...]
    key_tokens: tuple[Any, ...]
    shapes: dict[Any, Any]  # name -> shape of the whole [L, H, ...] array
    kv_head: tuple[Any, ...]  # (H,) head h -> its K/V head
    scales: tuple[Any, ...]  # (L,) the number S is multiplied by, per layer
    masks: tuple[Any, ...]  # (L,) (kind, window)
    dtype: str  # the float dtype a head's Scenario computes in
    read: Callable[..., np.ndarray] = field(repr=False)  # read(name, layer, head=None) -> np.ndarray
    raw_tokens: tuple[Any, ...] = ()  # the tokenizer's own tokens (Ġ kept), when captured from a model
    drawn: tuple[Any, ...] = ()  # a built-in's text as the token view draws it (token_bytes.drawn_texts)
    provenance: dict[Any, Any] = field(default_factory=dict)  # model, revision, dtype, versions, the check (capture)
    # a built-in's: the handle that re-runs it on another text (core/models: ModelEntry), the forward pass
    # these heads are of (a Run: each head's output, the residual stream, the logits), the text it read
    model: object = field(default=None, repr=False)
    run: object = field(default=None, repr=False)
    text: str = ""
    top: CapturedTop | None = field(default=None, repr=False)  # a captured file's own prediction

    @property
    def n_layers(self) -> int:
        return self.shapes["Q"][0]

    @property
    def n_heads(self) -> int:
        return self.shapes["Q"][1]

    @property
    def n_kv_heads(self) -> int:
        return self.shapes["K"][1]

    @property
    def T(self) -> int:
        return self.shapes["Q"][2]

    @property
    def T_k(self) -> int:
        return self.shapes["K"][2]

    @property
    def d_k(self) -> int:
        return self.shapes["Q"][3]

    def has(self, name: str) -> bool:
        return name in self.shapes

    def qkv(self, layer: int, head: int) -> Any:
        """(Q (T, d_k), K (T', d_k), V (T', d_v)) of one head, as stored."""
        check_head(self, layer, head)
        check()
        kv = self.kv_head[head]
        return self.read("Q", layer, head), self.read("K", layer, kv), self.read("V", layer, kv)

    def blocked_rows(self, layer: int, r0: int, r1: int, width: int | None = None) -> np.ndarray:
        """(r1 - r0, T') True where query rows r0..r1-1 may not see a key (core.attention.blocked_cells);
        of the first ``width`` keys only when given. Read-only: a causal, window or no mask's rows are
        shared by every head and layer (mask_rows)."""
        kind, w = self.masks[layer]
        if MASK_KINDS[kind].stored:
            return self.read("M", layer)[r0:r1, :width] <= SEEN
        return mask_rows(kind, w, r0, r1, self.T_k if width is None else min(width, self.T_k))[0]

    def seen_width(self, layer: int, r1: int) -> int:
        """Query rows before r1 see no key from this one on: r1 under a causal or window mask, else T'."""
        return min(r1, self.T_k) if MASK_KINDS[self.masks[layer][0]].future else self.T_k

    def weights_block(self, layer: int, head: int, qkv: Any | None = None) -> Any:
        """A function (r0, r1[, w]) -> (A rows r0..r1-1 (r1 - r0, T') in float64, seen keys (r1 - r0, T')),
        or of keys 0..w-1 only when w is given (w >= seen_width(layer, r1): the keys after are blocked)."""
        Q, K = (self.qkv(layer, head) if qkv is None else qkv)[:2]
        return self.scores_block(layer, Q, K)

    def scores_block(self, layer: int, Q: np.ndarray, K: np.ndarray) -> Any:
        """weights_block of the given Q (..., T, d_k) and K (..., T', d_k): one head's, or a stack of
        heads' (H, T, d_k) whose blocks are (H, r1 - r0, w), every head of a layer in one call each."""
        Q, K = np.asarray(Q, np.float64), np.asarray(K, np.float64)
        scale = self.scales[layer]
        M_layer = self.read("M", layer) if MASK_KINDS[self.masks[layer][0]].stored else None  # (T, T'), read once

        def block(r0: int, r1: int, w: Any | None = None) -> Any:
            check()  # a worker superseded or quitting stops here, a row block at most after (core/cancel.py)
            S = Q[..., r0:r1, :] @ np.swapaxes(K[..., :w, :], -1, -2)  # (..., r1 - r0, w)
            S *= scale
            if M_layer is not None:
                M = M_layer[r0:r1, :w]
                S += M
                return softmax(S), M > SEEN
            kind, window = self.masks[layer]
            width = self.T_k if w is None else min(w, self.T_k)
            if MASK_KINDS[kind].causal and self.T == self.T_k and r0 < width:
                return causal_block(S, r0, r1, width)
            blocked, M = mask_rows(kind, window, r0, r1, width)
            S += M  # M = -1e9 where blocked, 0 where seen (one pass: a subtract with where= took 10x the exp)
            return softmax(S), ~blocked

        return block


def causal_block(S: np.ndarray, r0: int, r1: int, width: int) -> Any:
    """softmax of a causal block's scores S (..., r1 - r0, width) and its seen keys. Query t sees keys
    j <= t: keys before r0 are seen by every row of the block, so the mask is added to the tile of
    keys r0..width-1 alone (the same tile for every block of its size, kept by mask_rows); the
    rest would have added 0, which changes no bit. The causal check of a 4,096-token layer: ~20 %
    less CPU than adding the whole block's mask."""
    blocked, M = mask_rows("causal", None, 0, r1 - r0, width - r0)
    S[..., r0:width] += M
    seen = np.ones(S.shape[-2:], bool)
    seen[:, r0:width] = ~blocked
    return softmax(S), seen


def mask_rows(kind: str, window: int | None, r0: int, r1: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(blocked (r1 - r0, width), M) of query rows r0..r1-1 and keys 0..width-1 under a causal, window
    or no mask: blocked True where a key is hidden, M its additive mask (-1e9 there, 0 elsewhere).
    Both read-only, kept in MASKS_KEPT (at most MASK_CACHE_BYTES): a model's heads and layers ask for
    the same row blocks."""
    return MASKS_KEPT.get((kind, window, r0, r1, width), lambda: _mask_rows(kind, window, r0, r1, width))


def _mask_rows(kind: str, window: Any, r0: int, r1: int, width: int) -> Any:
    blocked = blocked_cells(kind, r1 - r0, width, window=window, first=r0)
    M = np.where(blocked, -1e9, 0.0)
    blocked.setflags(write=False)
    M.setflags(write=False)
    return blocked, M


def check_head(src: HeadSource, layer: int, head: int | None = None) -> None:
    """InputError (a ValueError) naming a layer or head outside the source (both count from 0); its
    field says which, the CLI's flag."""
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < src.n_layers:
        raise InputError(f"{layer!r} is not a layer; this source has layers 0..{src.n_layers - 1}", "layer")
    bad = isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < src.n_heads
    if head is not None and bad:
        raise InputError(f"{head!r} is not a head; this source has heads 0..{src.n_heads - 1} per layer", "head")


def head_readings_of(src: HeadSource, layer: int, head: int) -> Readings:
    """The readings (readings.py) of one head, its rows in blocks."""
    check_head(src, layer, head)
    return head_readings(src.weights_block(layer, head), src.T, src.T_k, src.ids, layer, head)


def layer_readings(src: HeadSource, layer: int) -> list[Readings]:
    """One Readings per head of ``layer``, head 0 first."""
    check_head(src, layer)
    return [head_readings_of(src, layer, h) for h in range(src.n_heads)]


def all_readings(src: HeadSource, layer: int | None = None, progress: Any | None = None) -> list[Readings]:
    """Every head's readings, layer by layer (or one layer's); ``progress(done, total)`` after each head
    (a 16,384-token head takes seconds: a terminal says how far it got)."""
    layers = range(src.n_layers) if layer is None else [layer]
    if layer is not None:
        check_head(src, layer)
    pairs = [(ly, h) for ly in layers for h in range(src.n_heads)]
    out = []
    for done, (ly, h) in enumerate(pairs, 1):
        out.append(head_readings_of(src, ly, h))
        if progress is not None:
            progress(done, len(pairs))
    return out


def layer_qk(src: HeadSource, layer: int, heads: Any | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(Q, K) of ``heads`` of ``layer`` (every head when None) stacked (H, T, d_k), (H, T', d_k): each
    query head's K is its K/V head's (kv_head)."""
    heads = range(src.n_heads) if heads is None else heads
    return np.stack([src.read("Q", layer, h) for h in heads]), np.stack(
        [src.read("K", layer, src.kv_head[h]) for h in heads]
    )


def own_weights_diffs(
    src: HeadSource, layer: int, qkv: Any | None = None, heads: Any | None = None, rows: int = 64
) -> np.ndarray | None:
    """max |A computed - A the model reported| of each of ``heads`` of ``layer`` (every head when None),
    None when the source holds no A; ``qkv``: their (Q, K) stacked (H, T, d_k), else read.

    The heads at once (scores_block: a NumPy call a block for all of them), as many as OWN_A_BYTES of
    their reported A, Q and K allow (a stored A is up to 128 MiB a head: 12 heads read at once, 1.5 GiB),
    in blocks of ``rows`` query rows; under a causal or window mask a block's keys after its last row are
    blocked, so the computed A is 0 there and only the reported A's own |A| is compared (half the
    products and exponentials of a causal head)."""
    if not src.has("A"):
        return None
    heads = list(range(src.n_heads)) if heads is None else list(heads)
    if qkv is not None:
        qkv = [np.asarray(x, np.float64).reshape(len(heads), -1, np.shape(x)[-1]) for x in qkv[:2]]
    group = max(1, OWN_A_BYTES // (8 * (src.T * src.T_k + (src.T + src.T_k) * src.d_k)))  # A, Q and K of a head
    parts = []
    for g in range(0, len(heads), group):
        part = heads[g : g + group]
        Q, K = (x[g : g + group] for x in qkv) if qkv is not None else layer_qk(src, layer, part)
        parts.append(_own_diffs(src, layer, part, np.asarray(Q, np.float64), np.asarray(K, np.float64), rows))
    return np.concatenate(parts)


OWN_A_BYTES = 64 * 2**20  # the reported A read at once by own_weights_diffs (one head at least)


def _own_diffs(src: HeadSource, layer: int, heads: list[Any], Q: np.ndarray, K: np.ndarray, rows: int) -> np.ndarray:
    every = heads == list(range(src.n_heads))
    own = src.read("A", layer) if every else np.stack([src.read("A", layer, h) for h in heads])
    block, worst = src.scores_block(layer, Q, K), np.zeros(len(heads))
    for r0 in range(0, src.T, rows):
        r1 = min(src.T, r0 + rows)
        w = src.seen_width(layer, r1)
        A, _ = block(r0, r1, w)
        both = np.isnan(A) & np.isnan(own[:, r0:r1, :w])  # a fully masked row, NaN in both: they agree
        np.abs(np.subtract(A, own[:, r0:r1, :w], out=A), out=A)
        A[both] = 0.0
        np.maximum(worst, A.max(axis=(1, 2)), out=worst)  # NaN in one of them only: the figure is NaN, a failure
        if w < src.T_k:
            np.maximum(worst, np.abs(own[:, r0:r1, w:]).max(axis=(1, 2)), out=worst)
    return worst


def _scenario_mask(src: HeadSource, layer: int) -> Any:
    """(mask, window) a Scenario can hold; an additive mask only when it is 0 / blocked in a causal
    or no-mask pattern (else ValueError: the heads table reads it, a single head cannot)."""
    kind, w = src.masks[layer]
    if MASK_KINDS[kind].scenario:
        return kind, w
    M = np.asarray(src.read("M", layer))
    blocked = M <= SEEN
    if np.all(M[~blocked] == 0):
        causal = np.arange(src.T_k)[None, :] > np.arange(src.T)[:, None]
        if np.array_equal(blocked, causal):
            return "causal", None
        if not blocked.any():
            return "none", None
    raise ValueError(
        f"mask: layer {layer} has an explicit additive mask that is not causal or none; "
        f"`attn-tui heads` reads it, a single head takes {spoken(MASKS)}"
    )


def head_scenario(src: HeadSource, layer: int, head: int) -> Scenario:
    """The Scenario of one head: its Q, K, V, the layer's mask and scale (c = scale·√d_k), so
    every pane and the report work on it unchanged."""
    check_head(src, layer, head)
    Q, K, V = src.qkv(layer, head)
    mask, window = _scenario_mask(src, layer)
    keys = () if src.T_k == src.T and not src.key_tokens else src.key_tokens  # () is Scenario's default
    return Scenario(
        title=f"{shortened(src.title, 150)}: layer {layer}, head {head} (counted from 0)",  # titles are at most 200
        tokens=src.tokens,
        Q=Q,
        K=K,
        V=V,
        mask=mask,
        window=window,
        c=float(src.scales[layer] * np.sqrt(src.d_k)),
        scaled=True,
        dtype=src.dtype if src.dtype in DTYPES else "float64",
        key_tokens=keys,
    )

"""The model's own prediction at a position, and which parts of its residual stream put it there
(direct logit attribution, as TransformerLens's ``apply_ln_to_stack`` with the final norm's scale held).

An attention-only model's final residual stream at position t is a sum of parts:

    x_t = e_t + Σ_l Σ_j o_t^(l,j)      e_t the direct path (the embedding, + positions for the demo) (d,),
                                        o_t^(l,j) = (O_j W_O^(j))_t, head j of layer l's write (d,)

so the logit of token v, x_t W_U[:, v], is Σ_p p W_U[:, v] over the parts p, exactly. With a final
LayerNorm LN(x) = (x − mean x) / σ · w, the mean is linear and σ is one number per position: held
fixed, LN(x_t) = Σ_p (p − mean p) / σ · w, so each part's share is ((p − mean p) / σ · w) W_U[:, v]
and the shares still sum to the logit, exactly up to rounding. No model here has an MLP (the demo
and the text model are attention-only), so there is no MLP part: none is made up.

Everything here works on plain float64 arrays; ``source_readout`` reads them off a built-in source's
forward (core/models: its Run and its model's unembedding and final norm).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..attention import softmax
from .capture_check import token_label

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.heads.source import HeadSource

TOP = 5  # next tokens listed (the "top 5")
NO_MLP = "it has no MLP, so no MLP part"


class Part(NamedTuple):
    """One part's share of a logit: the direct path (layer and head None) or head ``layer``.``head``."""

    layer: int | None
    head: int | None
    logit: float

    @property
    def is_head(self) -> bool:
        return self.layer is not None


class Prediction(NamedTuple):
    """What the model predicts after position ``t`` (0-based) and who put the top token there.

    top: ((label, p), ...) heaviest first; token: the top token's id, logit its logit; parts: each
    part's share of that logit, ranked (largest first), summing to ``logit``."""

    t: int
    top: tuple[Any, ...]
    token: int
    logit: float
    parts: tuple[Any, ...]
    direct_name: str
    has_norm: bool
    legend: str = ""  # a captured file's words for the parts (captured_top.py); "" for a built-in's

    @property
    def captured(self) -> bool:
        return bool(self.legend)

    @property
    def direct(self) -> float | None:
        return next((p.logit for p in self.parts if not p.is_head), None)

    @property
    def heads(self) -> tuple[Any, ...]:
        return tuple(p for p in self.parts if p.is_head)


@dataclass(frozen=True, eq=False)
class Readout:
    """One forward's pieces the prediction is read from, float64.

    logits (T, V); direct (T, d): the direct path at each position; heads (L, H, T, d): each head's
    O_j W_O^(j); W_U (d, V); vocab: id -> label (a tuple, or TokenLabels); ln_scale (T,): 1/σ of the
    final norm at each position and ln_weight (d,) its weight, both None for a model with no final
    norm (the demo)."""

    logits: np.ndarray
    direct: np.ndarray
    heads: np.ndarray
    W_U: np.ndarray
    vocab: object
    ln_scale: np.ndarray | None = None
    ln_weight: np.ndarray | None = None
    direct_name: str = "the embedding"


class TokenLabels:
    """Token id -> its label on screen, from a tokenizer: its vocabulary when it has one (the demo's
    letters), else its own ``label`` of the id when asked (the text model's, as its encode labels a
    token: a byte of a split character as <C3>; a few thousand are never all shown)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def __getitem__(self, i: int) -> str:
        vocab = getattr(self.tokenizer, "vocab", None)
        if vocab is not None:
            return vocab[i]
        label = getattr(self.tokenizer, "label", None)
        return label(i) if label is not None else token_label(self.tokenizer.decode([int(i)]))


def source_readout(src: HeadSource) -> Readout | None:
    """The Readout of a built-in HeadSource (its ``run`` and its ``model``, a core/models ModelEntry): the
    direct path resid[0], each head's head_out, the logits, the unembedding and, for a model with a
    final LayerNorm (ln_final), its 1/σ at each position and its weight. None for a file of heads."""
    run, entry = getattr(src, "run", None), getattr(src, "model", None)
    if run is None or entry is None:
        return None
    model = entry.model()
    norm = getattr(model, "ln_final", None)
    return Readout(
        logits=run.logits,
        direct=run.resid[0],
        heads=run.head_out,
        W_U=model.W_U if norm is None else model.unembed,
        vocab=TokenLabels(model.tokenizer),
        ln_scale=None if norm is None else run.final_scale,
        ln_weight=norm,
        direct_name="embedding + position" if getattr(model, "P", None) is not None else "embedding",
    )


def probabilities(logits_row: np.ndarray) -> np.ndarray:
    """softmax of one row of logits (V,) in float64 (the stable softmax: exp(x − max x) / Σ)."""
    return softmax(np.asarray(logits_row, dtype=np.float64).reshape(-1))


def top_k(logits_row: np.ndarray, k: int, labels: Any) -> list[Any]:
    """[(label, p), ...] of the ``k`` most probable tokens, heaviest first (ties: the lower id first).

    >>> top_k([0.0, 2.0, 1.0], 2, "abc")[0][0]
    'b'
    """
    p = probabilities(logits_row)
    return [(labels[i], float(p[i])) for i in _ranked(p)[:k]]


def _ranked(x: np.ndarray) -> np.ndarray:
    """Indices of ``x`` (V,) largest first, ties by index."""
    return np.lexsort((np.arange(x.size), -x))


def attribution(
    direct: Any, head_outputs: Any, W_U_col: Any, ln_scale: Any | None = None, ln_weight: Any | None = None
) -> list[Part]:
    """Each part's share of one logit, ranked largest first: direct (d,), head_outputs (L, H, d),
    W_U_col (d,) the unembedding of the token. With a final norm (ln_scale = 1/σ at the position,
    ln_weight (d,)), each part is centred, times 1/σ and w, before the dot product; without one the
    shares are the plain dot products. Either way they sum to the logit (to rounding)."""
    direct = np.asarray(direct, dtype=np.float64)
    heads = np.asarray(head_outputs, dtype=np.float64)
    u = np.asarray(W_U_col, dtype=np.float64)
    if ln_scale is not None:
        w = np.ones_like(u) if ln_weight is None else np.asarray(ln_weight, dtype=np.float64)
        u = u * w * float(ln_scale)  # (p − mean p) · (u w / σ): the centring goes on the parts
        direct = direct - direct.mean()
        heads = heads - heads.mean(axis=-1, keepdims=True)
    shares = heads @ u  # (L, H)
    parts = [Part(None, None, float(direct @ u))]
    parts += [Part(ly, h, float(shares[ly, h])) for ly in range(shares.shape[0]) for h in range(shares.shape[1])]
    return sorted(parts, key=lambda p: -p.logit)


def predict(readout: Readout, t: int, k: int = TOP) -> Prediction:
    """The top ``k`` next tokens after position ``t`` (0-based) and the parts of the top one's logit."""
    row = readout.logits[t]
    top = top_k(row, k, readout.vocab)
    token = int(_ranked(np.asarray(row, dtype=np.float64))[0])
    scale = None if readout.ln_scale is None else readout.ln_scale[t]
    parts = attribution(readout.direct[t], readout.heads[:, :, t], readout.W_U[:, token], scale, readout.ln_weight)
    return Prediction(
        t, tuple(top), token, float(row[token]), tuple(parts), readout.direct_name, readout.ln_scale is not None
    )


def p_text(q: float) -> str:
    """A probability as text: three decimals, or two significant digits below 0.001 (not a bare 0.000)."""
    return f"{q:.3f}" if q >= 0.001 or q == 0 else f"{q:.1e}"


def how_they_sum(p: Prediction) -> str:
    """What the parts are and how they make up the logit (the legend's words for ``p``)."""
    if p.legend:
        return p.legend
    held = ", the final norm's 1/σ at this position held fixed" if p.has_norm else ""
    return (
        f"{p.direct_name} and each head's write O_h W_O^(h), each through the unembedding{held}; "
        f"they sum to the logit exactly, for an attention-only model such as this one ({NO_MLP})"
    )


NO_PREDICTION = (
    "no prediction here: this file holds the heads' Q, K, V, not the model's unembedding, "
    "so the next token and each head's share of it cannot be computed"
)

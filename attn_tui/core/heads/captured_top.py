"""A captured model's own prediction, read from its file (what `attn-tui capture` stores, capture/top.py):

    top_ids (T, k)        the k most probable next tokens after each position, as indices into the
                          ``top_tokens`` setting (their labels, decoded by the model's tokenizer), heaviest first
    top_p (T, k)          their probabilities (the model's softmax over its whole vocabulary)
    top_logit (T, k)      their logits
    top_readout (T, d)    optional: W_U[:, top token] · w / σ_t, the unembedding of the top token through the
                          final norm's weight and its 1/σ at position t, held fixed (TransformerLens's
                          apply_ln_to_stack): a head's direct share of the top logit is (o − mean o) · it,
                          o the head's write O_h W_O^(h) at t (without the centring for an RMS norm)

The model's MLPs, biases and embedding are not captured one by one, so what is left of the logit once the
heads' direct parts are taken is shown as one part, "the rest"; the parts sum to the logit by construction
and the legend says so. ``read_top`` checks the arrays when the file is opened (every door: shapes against
T, ids in range, probabilities finite in [0, 1], rows sorted), one line each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .multihead_shapes import MAX_K
from .prediction import NO_PREDICTION, TOP, Part, Prediction, predict, source_readout
from .query_top import layer_rows
from .source import HeadSource

if TYPE_CHECKING:
    from typing import Any

TOP_ARRAYS = ("top_ids", "top_p", "top_logit")
REST = "the rest"  # the logit minus the heads' parts: the legend says what it holds
NO_HEAD = (
    "no prediction: the model was captured without a language-model head (its AutoModel, as BERT's), "
    "so it stored no next token"
)
WHY_NONE = {
    "no_lm_head": NO_HEAD,
    "logits": "no prediction: the model's logits are not its output layer applied to its last hidden state "
    "(a soft cap or a scale comes after), so capture stored none",
}
WHY_NO_PARTS = {
    "layers": "no per-head parts: the capture kept some layers only (--layers), not every head's write",
    "w_o": "no per-head parts: the file holds no output projection W_O, so a head's write is not known",
    "norm": "no per-head parts: the model's final norm is not a LayerNorm or RMS norm whose 1/σ can be held fixed",
}
NO_PARTS = "no per-head parts: the file holds the top tokens, not the unembedding rows and final norm they need"


@dataclass(frozen=True, eq=False)
class CapturedTop:
    """A file's stored prediction, checked: ids (T, k) into labels, p and logit (T, k) float64."""

    ids: np.ndarray
    p: np.ndarray
    logit: np.ndarray
    labels: tuple[Any, ...]
    readout: bool  # the file holds top_readout: per-head parts can be read
    centred: bool  # the final norm centres (LayerNorm), so each write is centred before the readout


def read_top(arrays: dict[Any, Any], labels: Any, T: int, centred: bool = True) -> CapturedTop | None:
    """The checked CapturedTop of the top_* ``arrays`` (name -> whole array) and the ``labels`` of
    top_tokens; None when the file holds none. ValueError, one line naming the array, otherwise."""
    if not any(n in arrays for n in (*TOP_ARRAYS, "top_readout")) and labels is None:
        return None
    missing = [n for n in TOP_ARRAYS if n not in arrays] + (["top_tokens"] if labels is None else [])
    if missing:
        raise ValueError(f"{missing[0]}: missing; a stored prediction is top_ids, top_p, top_logit and top_tokens")
    ids, p, logit = (np.asarray(arrays[n]) for n in TOP_ARRAYS)
    for name, a in zip(TOP_ARRAYS, (ids, p, logit)):
        if a.ndim != 2 or a.shape[0] != T or not 1 <= a.shape[1] <= MAX_K or a.shape != ids.shape:
            raise ValueError(f"{name}: shape {a.shape}; the prediction's arrays are (T, k) = ({T}, 1..{MAX_K}), alike")
    if ids.dtype.kind not in "iu":
        raise ValueError(f"top_ids: {ids.dtype.name} entries; token indices are integers")
    bad = np.argwhere((ids < 0) | (ids >= len(labels)))
    if len(bad):
        r, c = bad[0]
        raise ValueError(f"top_ids: row {r + 1}, column {c + 1} is {ids[r, c]}; top_tokens has {len(labels)} labels")
    p, logit = p.astype(np.float64), logit.astype(np.float64)
    for name, a, ok in (("top_p", p, (p >= 0) & (p <= 1)), ("top_logit", logit, np.isfinite(logit))):
        bad = np.argwhere(~ok)
        if len(bad):
            r, c = bad[0]
            what = "a probability, finite in [0, 1]" if name == "top_p" else "finite"
            raise ValueError(f"{name}: row {r + 1}, column {c + 1} is {a[r, c]:g}; each entry is {what}")
    for name, a in (("top_p", p), ("top_logit", logit)):
        bad = np.argwhere(np.diff(a, axis=1) > 0)
        if len(bad):
            raise ValueError(f"{name}: row {bad[0][0] + 1} is not sorted; each row is heaviest first")
    if np.any(p.sum(axis=1) > 1 + 1e-3):
        raise ValueError(f"top_p: row {int(np.argmax(p.sum(axis=1))) + 1} sums past 1; they are probabilities")
    return CapturedTop(ids.astype(np.int64), p, logit, tuple(labels), "top_readout" in arrays, bool(centred))


def why_none(src: HeadSource) -> str | None:
    """The one line a view shows instead of a prediction, or None when ``src`` has one (a built-in
    model's, or a captured file's)."""
    if source_readout(src) is not None or getattr(src, "top", None) is not None:
        return None
    about = src.provenance.get("prediction") if isinstance(src.provenance, dict) else None
    code = about.get("none") if isinstance(about, dict) else None
    return WHY_NONE.get(code, NO_PREDICTION) if isinstance(code, str) else NO_PREDICTION


def predict_source(src: HeadSource, t: int) -> Prediction | None:
    """The prediction after position ``t`` (0-based): a built-in's, recomputed (prediction.predict), or
    a captured file's, read; None when ``src`` has none (why_none says why)."""
    readout = source_readout(src)
    if readout is not None:
        return predict(readout, t)
    top = getattr(src, "top", None)
    return None if top is None else captured_prediction(src, top, t)


def why_no_parts(src: HeadSource) -> str:
    about = src.provenance.get("prediction") if isinstance(src.provenance, dict) else None
    code = about.get("by_head") if isinstance(about, dict) else None
    return WHY_NO_PARTS.get(code, NO_PARTS) if isinstance(code, str) else NO_PARTS


def captured_prediction(src: HeadSource, top: CapturedTop, t: int) -> Prediction:
    """The stored top k after ``t`` and, when the file holds top_readout, each head's direct share of the
    top token's logit and the rest (the logit minus them)."""
    pairs = tuple((top.labels[i], float(q)) for i, q in zip(top.ids[t, :TOP], top.p[t, :TOP]))
    logit = float(top.logit[t, 0])
    if not top.readout:
        return Prediction(t, pairs, int(top.ids[t, 0]), logit, (), REST, True, why_no_parts(src))
    shares = head_shares(src, t, top.centred)
    parts = [Part(ly, h, float(shares[ly, h])) for ly in range(shares.shape[0]) for h in range(shares.shape[1])]
    parts.append(Part(None, None, logit - float(shares.sum())))
    legend = (
        "each head's write O_h W_O^(h) at this position through the final norm's 1/σ, held fixed, and the "
        "unembedding: the heads' direct parts; the MLPs, biases and embedding are not captured one by one, so "
        "the rest is the logit minus the heads' parts"
    )
    return Prediction(
        t, pairs, int(top.ids[t, 0]), logit, tuple(sorted(parts, key=lambda x: -x.logit)), REST, True, legend
    )


def head_shares(src: HeadSource, t: int, centred: bool) -> np.ndarray:
    """(L, H): each head's write at ``t`` (row t of its A times its V, through its rows of W_O) dotted with
    the file's top_readout row t (centred first for a LayerNorm)."""
    u = src.read("top_readout", t)  # (d,)
    d_v = src.shapes["V"][3]
    out = np.zeros((src.n_layers, src.n_heads))
    for ly in range(src.n_layers):
        A, _ = layer_rows(src, ly, t)  # (H, T')
        W_O = src.read("W_O", ly)  # (H·d_v, d)
        for h in range(src.n_heads):
            o = (A[h] @ src.read("V", ly, src.kv_head[h])) @ W_O[h * d_v : (h + 1) * d_v]
            out[ly, h] = (o - o.mean() if centred else o) @ u
    return out

"""The built-in multi-head scenario ``induction-demo``: the shipped model (model.py) run on a
sequence of letters, every head of both layers ready for head_scenario and the readings."""

from __future__ import annotations

import numpy as np

from .model import Model, ModelForward, encode, forward, shipped_model
from .prediction import Readout
from .source import HeadSource

DEFAULT_TOKENS = "q w e r t y u i o p q w e r t y u i o p"  # ten letters, then the same ten again


def memory_reader(arrays: dict):
    """read(name, layer, head=None) over whole [L, H, ...] arrays held in memory."""

    def read(name, layer, head=None):
        a = arrays[name][layer]
        return a if head is None else a[head]

    return read


def model_source(model: Model, tokens: str, title: str, source: str) -> HeadSource:
    """Every head of ``model`` on the space-separated ``tokens`` (ValueError: unknown token, too long)."""
    ids = encode(model, tokens)
    f = forward(model, ids)
    L, H, d_k = model.n_layers, model.n_heads, model.d_k
    words = tuple(model.vocab[i] for i in ids)
    arrays = {"Q": f.Q, "K": f.K, "V": f.V, "A": f.A, "W_O": model.W_O.reshape(L, H * d_k, -1)}
    return HeadSource(
        title=title,
        source=source,
        tokens=words,
        ids=words,
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=tuple(range(H)),
        scales=(float(model.scale),) * L,
        masks=(("causal", None),) * L,
        dtype="float64",
        read=memory_reader(arrays),
        readout=readout_of(model, f),
    )


def readout_of(model: Model, f: ModelForward) -> Readout:
    """What the prediction reads from the forward ``f``: the direct path E[ids] + P[:T] (T, d_model),
    each head's write O_h W_O^(h) (L, H, T, d_model), W_U and the logits; no final norm."""
    heads = np.einsum("lhtk,lhkd->lhtd", f.O, model.W_O)
    return Readout(f.logits, f.resid[0], heads, model.W_U, model.vocab, direct_name="embedding + position")


def induction_demo(tokens: str | None = None) -> HeadSource:
    """A small trained model (two layers of 4 heads over a..z): its previous-token and induction heads.

    Its heads on ``tokens`` (space-separated letters; default DEFAULT_TOKENS). The first line is what
    the open dialog shows a learner."""
    text = DEFAULT_TOKENS if tokens is None else tokens
    return model_source(
        shipped_model(),
        text,
        title=f"induction-demo on {' '.join(text.split())!r}"[:200],
        source="attn_tui/core/heads/induction_demo.npz (scripts/train_induction_demo.py)",
    )


HEAD_BUILTINS = {"induction-demo": induction_demo}

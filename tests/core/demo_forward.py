"""The induction demo's forward written again for the prediction's tests (tests/core/test_prediction.py,
tests/report/test_prediction_report.py): from the weights file, a head at a time, each head's write kept."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.models.induction import WEIGHTS

REPEAT = "q w e r t y u i q w e r t y u i"


def own_forward(letters: str):
    """(logits (T, V), direct (T, d), writes {(layer, head): (T, d)}) of the demo on ``letters``, from the
    weights file, each head's O_h W_O^(h) kept: the model's formula written again, a head at a time."""
    with np.load(WEIGHTS) as z:
        w = {k: z[k].astype(np.float64) for k in ("E", "P", "W_Q", "W_K", "W_V", "W_O", "W_U")}
    ids = [ord(c) - ord("a") for c in letters.split()]
    T = len(ids)
    x = w["E"][ids] + w["P"][:T]
    direct, writes = x.copy(), {}
    for layer in range(w["W_Q"].shape[0]):
        step = np.zeros_like(x)
        for h in range(w["W_Q"].shape[1]):
            q, k, v = (x @ w[n][layer, h] for n in ("W_Q", "W_K", "W_V"))
            s = q @ k.T / math.sqrt(q.shape[1])
            s[np.triu_indices(T, 1)] = -np.inf
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            writes[layer, h] = a @ v @ w["W_O"][layer, h]
            step += writes[layer, h]
        x = x + step
    return x @ w["W_U"], direct, writes, w["W_U"]

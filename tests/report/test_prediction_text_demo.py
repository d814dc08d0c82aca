"""text-demo's prediction (issue 50): `heads text-demo --text … --query t --json`'s "prediction" against the
text model's forward written again here from its weights, a head at a time (RoPE, the layer norms, the
final norm's 1/σ), not through the app's Run: the top five, each head's share of the top token's logit with
the final norm's 1/σ at t held fixed, and the parts summing to the logit within 1e-9. The shipped model
when it ships, else random weights of its format (tests/core/textmodels.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui import cli
from attn_tui.core.heads.capture_check import token_label
from tests.core.textmodels import text_demo_model

TEXT = "The cat sat on the mat. The cat sat on the mat."
SUM_TOL = 1e-9


@pytest.fixture
def model(monkeypatch, tmp_path):
    return text_demo_model(monkeypatch, tmp_path)


def _ln(x, w, eps):
    """(LN(x) (T, d), 1/σ (T,)): population variance, no bias."""
    c = x - x.mean(axis=-1, keepdims=True)
    inv = 1 / np.sqrt((c**2).mean(axis=-1) + eps)
    return c * inv[:, None] * w, inv


def _rope(x, base):
    T, d = x.shape
    half = d // 2
    ang = np.arange(T)[:, None] * base ** (-2 * np.arange(half) / d)[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], 1)), np.sin(np.concatenate([ang, ang], 1))
    return x * cos + np.concatenate([-x[:, half:], x[:, :half]], 1) * sin


def own_forward(m, ids):
    """(logits (T, V), x0 (T, d), {(layer, head): O_h W_O^(h) (T, d)}, 1/σ of the final norm (T,))."""
    x = m.embed[ids].astype(np.float64)
    x0, writes = x.copy(), {}
    T = len(ids)
    for layer in range(m.W_Q.shape[0]):
        h, _ = _ln(x, m.ln[layer], m.eps)
        step = np.zeros_like(x)
        for j in range(m.W_Q.shape[1]):
            q, k = (_rope(h @ W[layer, j], m.rope_base) for W in (m.W_Q, m.W_K))
            s = q @ k.T / np.sqrt(q.shape[1])
            s[np.triu_indices(T, 1)] = -np.inf
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            writes[layer, j] = a @ (h @ m.W_V[layer, j]) @ m.W_O[layer, j]
            step += writes[layer, j]
        x = x + step
    final, inv = _ln(x, m.ln_final, m.eps)
    return final @ m.unembed, x0, writes, inv


def test_text_demos_parts_sum_to_the_logit_with_the_norm_held(capsys, model):
    ids = model.tokenizer.encode(TEXT).ids
    logits, x0, writes, inv = own_forward(model, ids)
    t = len(ids) - 3
    row = logits[t]
    p = np.exp(row - row.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")[:5]
    tok = int(order[0])
    assert cli.main(["heads", "text-demo", "--text", TEXT, "--query", str(t + 1), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["prediction"]
    np.testing.assert_allclose([x["p"] for x in d["top"]], p[order], rtol=1e-9, atol=1e-12)
    assert d["top"][0]["token"] == token_label(model.tokenizer.decode([tok]))  # as the views label tokens
    u = model.ln_final * model.unembed[:, tok] * inv[t]

    def share(part):
        return float((part - part.mean()) @ u)

    scale = np.abs(row).max()
    for h in d["by_head"]:
        assert h["logit"] == pytest.approx(share(writes[h["layer"], h["head"]][t]), abs=1e-10 * scale)
    assert d["direct"] == pytest.approx(share(x0[t]), abs=1e-10 * scale)
    assert len(d["by_head"]) == len(writes)
    assert abs(d["direct"] + sum(h["logit"] for h in d["by_head"]) - row[tok]) < SUM_TOL
    assert d["logit"] == pytest.approx(row[tok], abs=1e-10 * scale)


def test_text_demos_text_says_the_norm_is_held(capsys, model):
    assert cli.main(["heads", "text-demo", "--text", TEXT, "--query", "4"]) == 0
    out = capsys.readouterr().out
    assert "the final norm's 1/σ at this position held fixed" in out
    parts = out.split("what the model predicts")[1].splitlines()
    assert sum(line.endswith("  embedding") for line in parts) == 1  # no positions added in this model
    assert "MLP part" in out and "embedding + position" not in out

"""The text model's NumPy forward against torch's own layers on the same weights, both float64, to
<= 1e-6 (issue 49): the shipped weights when they ship, else random ones of the same format.
torch's layer_norm and scaled_dot_product_attention (is_causal) stand for the LN and the heads;
RoPE is written as the contract gives it (GPT-NeoX rotate_half). Skipped without torch (the oracle lane)."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.models.text import forward, shipped_text_model
from tests.core.textmodels import random_model, shipped

TEXTS = [
    "The cat sat on the mat. The cat sat on the mat.",
    "It was a bright cold day in April, and the clocks were striking thirteen.",
]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return shipped_text_model() if shipped() else random_model(tmp_path_factory.mktemp("text"))


def torch_forward(torch, m, ids):
    """logits (T, V), each layer's A (H, T, T) and Q after RoPE (H, T, d_head), in torch float64."""
    F = torch.nn.functional
    t = lambda a: torch.from_numpy(np.array(a))  # noqa: E731  (a writable copy)
    T, d, dh = len(ids), m.embed.shape[1], m.d_k
    half = dh // 2
    inv_freq = m.rope_base ** (-torch.arange(0, half, dtype=torch.float64) * 2 / dh)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    rope = lambda q: q * cos + torch.cat([-q[..., half:], q[..., :half]], -1) * sin  # noqa: E731
    x = t(m.embed)[torch.from_numpy(np.asarray(ids))]
    As, Qs = [], []
    for ly in range(m.n_layers):
        h = F.layer_norm(x, (d,), weight=t(m.ln[ly]), eps=m.eps)
        q = rope(torch.einsum("td,hdk->htk", h, t(m.W_Q[ly])))
        k = rope(torch.einsum("td,hdk->htk", h, t(m.W_K[ly])))
        v = torch.einsum("td,hdk->htk", h, t(m.W_V[ly]))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        As.append(torch.softmax((q @ k.transpose(-1, -2) / dh**0.5).masked_fill(~causal, float("-inf")), -1))
        Qs.append(q)
        x = x + torch.einsum("htk,hkd->td", o, t(m.W_O[ly]))
    logits = F.layer_norm(x, (d,), weight=t(m.ln_final), eps=m.eps) @ t(m.unembed)
    return logits.numpy(), [a.numpy() for a in As], [q.numpy() for q in Qs]


@pytest.mark.parametrize("text", TEXTS)
def test_numpy_forward_equals_torch_to_1e6(model, text):
    torch = pytest.importorskip("torch", reason="torch not installed: pip install -e '.[oracle]'")
    ids = model.tokenizer.encode(text).ids
    want, As, Qs = torch_forward(torch, model, ids)
    run = forward(model, ids)
    assert np.abs(run.logits - want).max() <= 1e-6
    for ly in range(model.n_layers):
        assert np.abs(run.A[ly] - As[ly]).max() <= 1e-6
        assert np.abs(run.Q[ly] - Qs[ly]).max() <= 1e-6  # post-RoPE, as the heads screen reads them

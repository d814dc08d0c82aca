"""Oracle tests: the core against a naive triple loop, and against PyTorch's
``scaled_dot_product_attention`` on seeded random shapes (skipped without torch)."""

import math

import numpy as np
import pytest

from attn_tui.core import attention, causal_mask
from attn_tui.core.attention import additive_mask, blocked_cells

SEEDS = range(12)


def naive_attention(Q, K, V, blocked=None, scale=None):
    """Attention written out with loops, the lesson's formulas one entry at a time."""
    T, d_k = len(Q), len(Q[0])
    T_k, d_v = len(K), len(V[0])
    scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    A = [[0.0] * T_k for _ in range(T)]
    O = [[0.0] * d_v for _ in range(T)]
    for t in range(T):
        s = [scale * sum(Q[t][j] * K[i][j] for j in range(d_k)) for i in range(T_k)]
        seen = [i for i in range(T_k) if blocked is None or not blocked[t][i]]
        m = max(s[i] for i in seen)
        den = sum(math.exp(s[i] - m) for i in seen)
        for i in seen:
            A[t][i] = math.exp(s[i] - m) / den
        for j in range(d_v):
            O[t][j] = sum(A[t][i] * V[i][j] for i in range(T_k))
    return np.array(A), np.array(O)


def random_case(seed, cross):
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 9))
    T_k = int(rng.integers(1, 9)) if cross else T
    d_k, d_v = int(rng.integers(1, 9)), int(rng.integers(1, 7))
    Q = rng.normal(0, 1.5, (T, d_k))
    K = rng.normal(0, 1.5, (T_k, d_k))
    V = rng.normal(0, 1.0, (T_k, d_v))
    return rng, Q, K, V


@pytest.mark.parametrize("seed", SEEDS)
def test_naive_loop_self_attention_causal(seed):
    _, Q, K, V = random_case(seed, cross=False)
    T = Q.shape[0]
    blocked = blocked_cells("causal", T)
    tr = attention(Q, K, V, mask=causal_mask(T))
    A, O = naive_attention(Q.tolist(), K.tolist(), V.tolist(), blocked.tolist())
    np.testing.assert_allclose(tr.A, A, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tr.O, O, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
def test_naive_loop_cross_attention_padding_custom_scale(seed):
    rng, Q, K, V = random_case(seed, cross=True)
    T, T_k = Q.shape[0], K.shape[0]
    pad = [int(p) for p in rng.choice(T_k, size=T_k // 2, replace=False)]
    blocked = blocked_cells("none", T, T_k, pad)
    scale = float(rng.uniform(0.1, 2.0))
    tr = attention(Q, K, V, mask=additive_mask(blocked, "-inf"), scale=scale)
    A, O = naive_attention(Q.tolist(), K.tolist(), V.tolist(), blocked.tolist(), scale)
    np.testing.assert_allclose(tr.A, A, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tr.O, O, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tr.S, scale * Q @ K.T, rtol=1e-13, atol=1e-13)


# -- PyTorch ----------------------------------------------------------------------
def sdpa(Q, K, V, **kw):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))[None]  # (1, T, d)
    mask = kw.pop("attn_mask", None)
    if mask is not None:
        kw["attn_mask"] = t(mask)
    return F.scaled_dot_product_attention(t(Q), t(K), t(V), **kw)[0].numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_causal_default_scale(seed):
    pytest.importorskip("torch")
    _, Q, K, V = random_case(seed, cross=False)
    tr = attention(Q, K, V, mask=causal_mask(Q.shape[0]))
    np.testing.assert_allclose(tr.O, sdpa(Q, K, V, is_causal=True), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_cross_attention_custom_scale_boolean_mask(seed):
    pytest.importorskip("torch")
    rng, Q, K, V = random_case(seed + 100, cross=True)
    T, T_k = Q.shape[0], K.shape[0]
    blocked = rng.random((T, T_k)) < 0.4
    blocked[np.arange(T), rng.integers(0, T_k, T)] = False  # every row keeps a key
    scale = float(rng.uniform(0.05, 3.0))
    tr = attention(Q, K, V, mask=blocked, scale=scale)
    # torch's boolean mask says where attention is ALLOWED
    ref = sdpa(Q, K, V, attn_mask=~blocked, scale=scale)
    np.testing.assert_allclose(tr.O, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fill", ["-1e9", "-inf", "min"])
def test_torch_additive_mask(seed, fill):
    pytest.importorskip("torch")
    rng, Q, K, V = random_case(seed + 200, cross=True)
    T, T_k = Q.shape[0], K.shape[0]
    pad = [int(p) for p in rng.choice(T_k, size=(T_k - 1) // 2, replace=False)]
    M = additive_mask(blocked_cells("none", T, T_k, pad), fill)
    M = M + np.where(M == 0, rng.normal(0, 0.5, M.shape), 0)  # a soft additive bias too
    M[M > 0] = 0
    tr = attention(Q, K, V, mask=M)
    np.testing.assert_allclose(tr.O, sdpa(Q, K, V, attn_mask=M), rtol=1e-10, atol=1e-12)


def test_torch_float32():
    pytest.importorskip("torch")
    _, Q, K, V = random_case(7, cross=False)
    Q, K, V = (a.astype(np.float32) for a in (Q, K, V))
    tr = attention(Q, K, V, mask=causal_mask(Q.shape[0], dtype=np.float32), dtype=np.float32)
    assert tr.O.dtype == np.float32
    np.testing.assert_allclose(tr.O, sdpa(Q, K, V, is_causal=True), rtol=1e-5, atol=1e-6)

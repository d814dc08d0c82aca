"""An independent reference for the property tests: attention written from the lesson's
definitions with Python loops and the math module, sharing no code with attn_tui.core.

Scenario shapes: X (T, d_model), W_Q/W_K (d_model, d_k), W_V (d_model, d_v), Y (T', d_model).
Positions in ``padding`` count from 1, like the scenario's.
"""

from __future__ import annotations

import math

import numpy as np


def matmul(a, b):
    """(n, m) @ (m, p) with loops, a and b as nested lists."""
    return [[math.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def transpose(a):
    return [list(col) for col in zip(*a)]


def blocked(mask, T, T_k, padding=(), window=None):
    """blocked[t][i]: causal blocks key i after query t (i > t); a window of width w also
    blocks i <= t - w; a padded key (1-based) is blocked for every query."""
    out = []
    for t in range(T):
        row = []
        for i in range(T_k):
            b = False
            if mask in ("causal", "window") and i > t:
                b = True
            if mask == "window" and i <= t - window:
                b = True
            if (i + 1) in padding:
                b = True
            row.append(b)
        out.append(row)
    return out


def softmax_visible(scores, visible):
    """softmax over the visible entries, 0 elsewhere; None when nothing is visible."""
    seen = [s for s, v in zip(scores, visible) if v]
    if not seen:
        return None
    m = max(seen)
    e = [math.exp(s - m) if v else 0.0 for s, v in zip(scores, visible)]
    z = math.fsum(e)
    return [x / z for x in e]


def entropy_bits(p):
    return -math.fsum(x * math.log2(x) for x in p if x > 0) + 0.0  # never -0.0


def attention_rows(Q, K, V, B, scale):
    """S = scale · Q Kᵀ and, per query row t, A_t (softmax over the keys B[t] leaves open),
    O_t = A_t V and H(A_t) in bits; None for a row that sees no key."""
    T, T_k = len(Q), len(K)
    S = [[scale * v for v in row] for row in matmul(Q, transpose(K))]
    A, O, H = [], [], []
    for t in range(T):
        p = softmax_visible(S[t], [not b for b in B[t]])
        A.append(p)
        O.append(None if p is None else [math.fsum(p[i] * V[i][j] for i in range(T_k)) for j in range(len(V[0]))])
        H.append(None if p is None else entropy_bits(p))
    return S, A, O, H


def reference(s):
    """Everything a scenario's trace and report hold, recomputed in float64 from its inputs.

    Rows that see no key have A, O and H None (their value depends on the fill and dtype)."""
    X = s.X.tolist()
    src = (s.Y if s.Y is not None else s.X).tolist()
    Q, K, V = matmul(X, s.W_Q.tolist()), matmul(src, s.W_K.tolist()), matmul(src, s.W_V.tolist())
    T, T_k, d_k = len(Q), len(K), len(Q[0])
    scale = s.c / math.sqrt(d_k) if s.scaled else s.c
    B = blocked(s.mask, T, T_k, s.padding, s.window)
    S, A, O, H = attention_rows(Q, K, V, B, scale)
    visible = [sum(not b for b in row) for row in B]
    d_model = len(X[0])
    return {
        "Q": Q,
        "K": K,
        "V": V,
        "S": S,
        "blocked": B,
        "A": A,
        "O": O,
        "H": H,
        "visible": visible,
        "ceiling": [math.log2(n) if n else None for n in visible],
        "scale": scale,
        "T": T,
        "T_k": T_k,
        "d_model": d_model,
        "d_k": d_k,
        "d_v": len(V[0]),
        # parameters: the entries of W_Q, W_K (d_model x d_k) and W_V (d_model x d_v); W_O is d_v x d_model
        "params": d_model * d_k + d_model * d_k + d_model * len(V[0]),
        "params_W_O": d_model * d_k + d_model * d_k + d_model * len(V[0]) + len(V[0]) * d_model,
    }


# -- the seeded experiments, from numpy's default_rng draws (as the report documents) -----
def dots(d_k, n, seed):
    """n samples of q·k, q and k ~ N(0, I_{d_k}): q's n rows drawn first, then k's."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))
    k = rng.standard_normal((n, d_k))
    return (q * k).sum(axis=1)


def saturation_rows(d_k, T, seed):
    """Row 1 of softmax(Q Kᵀ) unscaled and scaled by 1/√d_k, Q then K ~ N(0, 1) (T, d_k)."""
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((T, d_k))
    K = rng.standard_normal((T, d_k))
    s = [math.fsum(Q[0] * K[i]) for i in range(T)]
    return softmax_visible(s, [True] * T), softmax_visible([v / math.sqrt(d_k) for v in s], [True] * T)


def sweep_row(T, d_k, seed):
    """The sweep's scores q·k_i/√d_k: q ~ N(0, I) drawn first, then K (T, d_k)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d_k)
    K = rng.standard_normal((T, d_k))
    return [math.fsum(K[i] * q) / math.sqrt(d_k) for i in range(T)]

"""An independent reference for the property tests: attention written from the lesson's
definitions with Python loops and the math module, sharing no code with attn_tui.core.

Scenario shapes: X (T, d_model), W_Q/W_K (d_model, d_k), W_V (d_model, d_v), Y (T', d_model).
Positions in ``padding`` count from 1, like the scenario's.
"""

from __future__ import annotations

import math


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
    return -math.fsum(x * math.log2(x) for x in p if x > 0)


def reference(s):
    """Everything a scenario's trace and report hold, recomputed in float64 from its inputs.

    Rows that see no key have A, O and H None (their value depends on the fill and dtype)."""
    X = s.X.tolist()
    src = (s.Y if s.Y is not None else s.X).tolist()
    Q, K, V = matmul(X, s.W_Q.tolist()), matmul(src, s.W_K.tolist()), matmul(src, s.W_V.tolist())
    T, T_k, d_k = len(Q), len(K), len(Q[0])
    scale = s.c / math.sqrt(d_k) if s.scaled else s.c
    S = [[scale * v for v in row] for row in matmul(Q, transpose(K))]
    B = blocked(s.mask, T, T_k, s.padding, s.window)
    A, O, H, visible = [], [], [], []
    for t in range(T):
        vis = [not b for b in B[t]]
        visible.append(sum(vis))
        p = softmax_visible(S[t], vis)
        A.append(p)
        O.append(None if p is None else [math.fsum(p[i] * V[i][j] for i in range(T_k)) for j in range(len(V[0]))])
        H.append(None if p is None else entropy_bits(p))
    d_model = len(X[0])
    return {
        "Q": Q, "K": K, "V": V, "S": S, "blocked": B, "A": A, "O": O, "H": H, "visible": visible,
        "ceiling": [math.log2(n) if n else None for n in visible],
        "scale": scale, "T": T, "T_k": T_k, "d_model": d_model, "d_k": d_k, "d_v": len(V[0]),
        # parameters: the entries of W_Q, W_K (d_model x d_k) and W_V (d_model x d_v); W_O is d_v x d_model
        "params": d_model * d_k + d_model * d_k + d_model * len(V[0]),
        "params_W_O": d_model * d_k + d_model * d_k + d_model * len(V[0]) + len(V[0]) * d_model,
    }

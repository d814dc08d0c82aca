"""Oracle tests: the core against a naive triple loop, and against PyTorch's
``scaled_dot_product_attention`` on seeded random shapes (skipped without torch)."""

import math
import os

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
TORCH_REASON = "torch not installed: pip install -e '.[oracle]' (the CPU wheel .ci/run installs) runs the oracle checks"


def need_torch():
    """torch, or a skip with the reason: torch is absent, or this is a mutation run
    (scripts/mutation.sh sets ATTN_MUTATION; mutmut forks its workers, and torch's thread
    pool does not survive a fork: the test would hang until mutmut's timeout)."""
    if os.environ.get("ATTN_MUTATION"):
        pytest.skip("mutation run: torch hangs in mutmut's forked workers")
    return pytest.importorskip("torch", reason=TORCH_REASON)


def sdpa(Q, K, V, **kw):
    torch = need_torch()
    F = torch.nn.functional
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))[None]  # (1, T, d)
    mask = kw.pop("attn_mask", None)
    if mask is not None:
        kw["attn_mask"] = t(mask)
    return F.scaled_dot_product_attention(t(Q), t(K), t(V), **kw)[0].numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_causal_default_scale(seed):
    need_torch()
    _, Q, K, V = random_case(seed, cross=False)
    tr = attention(Q, K, V, mask=causal_mask(Q.shape[0]))
    np.testing.assert_allclose(tr.O, sdpa(Q, K, V, is_causal=True), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_cross_attention_custom_scale_boolean_mask(seed):
    need_torch()
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
    need_torch()
    rng, Q, K, V = random_case(seed + 200, cross=True)
    T, T_k = Q.shape[0], K.shape[0]
    pad = [int(p) for p in rng.choice(T_k, size=(T_k - 1) // 2, replace=False)]
    M = additive_mask(blocked_cells("none", T, T_k, pad), fill)
    M = M + np.where(M == 0, rng.normal(0, 0.5, M.shape), 0)  # a soft additive bias too
    M[M > 0] = 0
    tr = attention(Q, K, V, mask=M)
    np.testing.assert_allclose(tr.O, sdpa(Q, K, V, attn_mask=M), rtol=1e-10, atol=1e-12)


def test_torch_float32():
    need_torch()
    _, Q, K, V = random_case(7, cross=False)
    Q, K, V = (a.astype(np.float32) for a in (Q, K, V))
    tr = attention(Q, K, V, mask=causal_mask(Q.shape[0], dtype=np.float32), dtype=np.float32)
    assert tr.O.dtype == np.float32
    np.testing.assert_allclose(tr.O, sdpa(Q, K, V, is_causal=True), rtol=1e-5, atol=1e-6)


# -- PyTorch against what the report prints: ranks and entropies -------------------------------
REPORT_CASES = [
    "lesson-handcrafted",
    "lesson-pipeline",
    "exercise1-doubled",
    "cross-attention",
    "box-kernel",
    *[f"random-{seed}" for seed in range(6)],
]


def report_case(name):
    from attn_tui.core import builtin
    from attn_tui.core.scenario import Scenario

    if not name.startswith("random-"):
        return builtin(name)
    rng = np.random.default_rng(int(name.split("-")[1]))
    T, T_k, d_model, d_k, d_v = (int(v) for v in rng.integers(1, 8, 5))
    Y = rng.normal(size=(T_k, d_model)) if T_k != T else None
    W = [rng.normal(size=(d_model, n)) for n in (d_k, d_k, d_v)]
    return Scenario(
        X=rng.normal(size=(T, d_model)),
        Y=Y,
        W_Q=W[0],
        W_K=W[1],
        W_V=W[2],
        mask="none" if Y is not None else "causal",
        c=float(rng.uniform(0.5, 2)),
    )


def torch_entropies(S_masked):
    """H(A_t) in bits from torch.softmax; None for a row with NaN."""
    torch = need_torch()
    p = torch.softmax(torch.from_numpy(np.asarray(S_masked, dtype=np.float64)), dim=-1)
    terms = torch.where(p > 0, p * torch.log2(p), torch.zeros_like(p))
    return [None if torch.isnan(row).any() else float(-terms[t].sum()) + 0.0 for t, row in enumerate(p)]  # no -0.0


@pytest.mark.parametrize("name", REPORT_CASES)
def test_torch_ranks_are_the_reports(name):
    torch = need_torch()
    from attn_tui.report import as_json, text

    s = report_case(name)
    tr = s.run()
    rank = lambda a: int(torch.linalg.matrix_rank(torch.from_numpy(np.asarray(a, dtype=np.float64))))
    want = (rank(tr.S), rank(tr.Q), rank(tr.K))
    assert (tr.rank_S, tr.rank_Q, tr.rank_K) == want
    line = f"rank(S) = {want[0]}   rank(Q) = {want[1]}   rank(K) = {want[2]}   d_k = {s.d_k}"
    assert line in text.scenario_text(s).splitlines()
    assert as_json.scenario_dict(s)["rank"] == {"S": want[0], "Q": want[1], "K": want[2], "d_k": s.d_k}


@pytest.mark.parametrize("name", REPORT_CASES)
def test_torch_entropies_are_the_reports(name):
    need_torch()
    from attn_tui.report import as_json, text

    s = report_case(name)
    tr = s.run()
    H = torch_entropies(tr.S_masked)
    d = as_json.scenario_dict(s)
    report = text.scenario_text(s).splitlines()
    top = report.index("  t  keys  log2(keys) |  H(A_t)    2^H")
    for t, h in enumerate(H):
        assert tr.H[t] == pytest.approx(h, abs=1e-12)
        assert d["row_entropy_bits"][t] == pytest.approx(h, abs=1e-12)
        assert d["effective_tokens"][t] == pytest.approx(2**h, rel=1e-12)
        assert report[top + 1 + t].endswith(f"| {h:7.2f} {2**h:6.2f}")


def test_torch_entropies_are_the_lessons_table():
    need_torch()
    from attn_tui.core import builtin
    from attn_tui.report import text

    H = torch_entropies(builtin("lesson-handcrafted").run().S_masked)
    H2 = torch_entropies(builtin("lesson-pipeline").run().S_masked)
    lines = text.lesson_text().splitlines()
    top = lines.index(" t  log2(t) |  hand-crafted A: H(A_t)  2^H  |  pipeline A2: H(A_t)  2^H")
    for t in range(1, 6):
        h, h2 = H[t - 1], H2[t - 1]
        assert lines[top + t] == (
            f" {t}   {math.log2(t):.2f}   |        {h:.2f}            {2**h:.2f}  |"
            f"        {h2:.2f}          {2**h2:.2f}"
        )

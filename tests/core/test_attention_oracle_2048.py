"""The full trace at the bench's size (T = 2048, d = 64, float64, causal) against torch.

attention() runs its softmax and entropies in place (issue 13: within 1.5x of torch's
scaled_dot_product_attention, measured by `python -m attn_tui.bench --large`, never
asserted here); these checks pin that the numbers stayed those of torch and of the
textbook formulas, at the size where the in-place steps matter.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from attn_tui.core.attention import attention, causal_mask, softmax
from attn_tui.core.info import entropy_bits

T, D = 2048, 64
TORCH_REASON = "torch not installed: pip install -e '.[oracle]' (the CPU wheel .ci/run installs) runs the oracle checks"


def need_torch():
    """torch, or a skip saying why (as in test_core_oracle: absent, or a mutation run's fork)."""
    if os.environ.get("ATTN_MUTATION"):
        pytest.skip("mutation run: torch hangs in mutmut's forked workers")
    return pytest.importorskip("torch", reason=TORCH_REASON)


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(2048)
    Q, K, V = (rng.standard_normal((T, D)) for _ in range(3))
    return Q, K, V, attention(Q, K, V, mask=causal_mask(T))


def test_torch_sdpa_causal_2048(case):
    torch = need_torch()
    Q, K, V, tr = case
    t = [torch.from_numpy(a)[None] for a in (Q, K, V)]
    ref = torch.nn.functional.scaled_dot_product_attention(*t, is_causal=True)[0].numpy()
    np.testing.assert_allclose(tr.O, ref, rtol=0, atol=1e-9)
    # A against torch's own softmax of the masked scores, built from Q and K in torch
    q, k = t[0][0], t[1][0]
    s = (q @ k.T) / np.sqrt(D) + torch.from_numpy(causal_mask(T))
    np.testing.assert_allclose(tr.A, torch.softmax(s, dim=-1).numpy(), rtol=0, atol=1e-9)


def test_trace_fields_2048(case):
    """Every field the UI and report read, from the formulas, without torch."""
    Q, K, V, tr = case
    S = (Q @ K.T) * (1 / np.sqrt(D))
    blocked = np.triu(np.ones((T, T), dtype=bool), k=1)
    np.testing.assert_array_equal(tr.blocked, blocked)
    np.testing.assert_array_equal(tr.M, np.where(blocked, -1e9, 0.0))
    np.testing.assert_allclose(tr.S, S, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(tr.S_masked, tr.S + tr.M)
    A = softmax(S + np.where(blocked, -1e9, 0.0))
    np.testing.assert_allclose(tr.A, A, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tr.A.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.O, A @ V, rtol=0, atol=1e-12)
    for t in (0, 1, 700, T - 1):  # the entropy of a few rows, one by one
        assert tr.H[t] == pytest.approx(entropy_bits(tr.A[t]), abs=1e-12)
    assert tr.H[0] == 0.0 and tr.nan_rows == ()
    np.testing.assert_array_equal(tr.eff, np.exp2(tr.H))


def test_nan_rows_from_row_sums():
    """A -inf fill on a fully masked row makes that row NaN and names it (from Σe, not a pass over A)."""
    rng = np.random.default_rng(7)
    Q, K, V = (rng.standard_normal((6, 3)) for _ in range(3))
    M = np.zeros((6, 6))
    M[[1, 4]] = -np.inf
    tr = attention(Q, K, V, mask=M)
    assert tr.nan_rows == (1, 4)
    assert np.isnan(tr.A[[1, 4]]).all() and not np.isnan(np.delete(tr.A, [1, 4], axis=0)).any()
    assert np.isnan(tr.H[[1, 4]]).all()

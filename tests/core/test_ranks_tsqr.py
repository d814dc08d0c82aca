"""Issue 32: core.ranks factors a tall Q or K in blocks of TSQR_ROWS rows (TSQR), and qr_ranks
gives rank S, rank Q, rank K and σ(S) from one QR each of Q, K, |Q|, |K| (score_rank_qr,
factor_rank and score_singular_values apart factored Q and K three times each)."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import ranks
from attn_tui.core.ranks import factor_rank, qr_ranks, score_rank_qr, score_singular_values

RNG = np.random.default_rng(32)


@pytest.mark.parametrize("rows", [2 * ranks.TSQR_ROWS + 1, 5000])
def test_the_blocked_r_has_the_singular_values_and_gram_matrix_of_the_matrix(rows):
    a = RNG.standard_normal((rows, 24)) * np.logspace(0, -6, 24)  # columns of very different sizes
    R = ranks._r_factor(a)
    assert R.shape == (24, 24) and np.allclose(np.tril(R, -1), 0.0)
    sv = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(np.linalg.svd(R, compute_uv=False), sv, rtol=1e-10)
    np.testing.assert_allclose(R.T @ R, a.T @ a, rtol=0, atol=1e-12 * sv[0] ** 2)


def test_a_tall_rank_deficient_factor_keeps_its_rank():
    T, d, r = 5000, 32, 20
    Q = RNG.standard_normal((T, r)) @ RNG.standard_normal((r, d))
    K = RNG.standard_normal((T, d))
    assert factor_rank(Q) == r and factor_rank(K) == d
    assert score_rank_qr(Q, K, 0.5) == r


@pytest.mark.parametrize(("dtype", "T"), [(np.float64, 3000), (np.float32, 40), (np.float16, 3000)])
def test_qr_ranks_is_the_three_functions(dtype, T):
    Q = (RNG.standard_normal((T, 8)) @ np.diag([1, 1, 1, 1, 1, 1, 1e-3, 0])).astype(dtype)
    K = RNG.standard_normal((T + 7, 8)).astype(dtype)
    got = qr_ranks(Q, K, 0.25, dtype)
    assert (got["S"], got["Q"], got["K"]) == (score_rank_qr(Q, K, 0.25, dtype), factor_rank(Q), factor_rank(K))
    np.testing.assert_array_equal(got["singular_values"], score_singular_values(Q, K, 0.25))
    assert got["Q"] == (6 if dtype == np.float16 else 7)  # float16 calls 1e-3 of the largest noise

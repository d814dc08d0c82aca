"""Ranks and singular values of S from QR factors of Q and K (core.ranks), checked against
np.linalg on the full S at small T, and against torch when it is importable."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.ranks import _rank, factor_rank, score_rank, score_rank_qr, score_singular_values

RNG = np.random.default_rng(21)


def low_rank(T, d, r, dtype=np.float64):
    return (RNG.standard_normal((T, r)) @ RNG.standard_normal((r, d))).astype(dtype)


@pytest.mark.parametrize(
    "T, T_k, d, r", [(40, 40, 8, 8), (40, 30, 8, 3), (5, 9, 12, 12), (3, 3, 6, 1), (60, 60, 16, 5)]
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_qr_ranks_match_the_full_s(T, T_k, d, r, dtype):
    Q, K = low_rank(T, d, r, dtype), RNG.standard_normal((T_k, d)).astype(dtype)
    scale = 0.7 / np.sqrt(d)
    with np.errstate(all="ignore"):
        S = (Q @ K.T) * dtype(scale)
    assert score_rank_qr(Q, K, scale, dtype) == score_rank(S, Q, K, scale)
    assert factor_rank(Q) == _rank(Q) and factor_rank(K) == _rank(K)
    if dtype == np.float64:
        sv = np.linalg.svd(S, compute_uv=False)[: min(T, T_k, d)]
        np.testing.assert_allclose(score_singular_values(Q, K, scale), sv, rtol=1e-9, atol=1e-12 * sv[0])


def test_no_t_by_t_matrix_is_needed():
    Q = low_rank(20000, 4, 2)  # S would be 20000 x 20000 (3 GiB); its rank is that of a 4 x 4 matrix
    assert score_rank_qr(Q, Q, 0.5) == 2
    assert score_singular_values(Q, Q, 0.5).shape == (4,)


def test_non_finite_factors_have_no_rank():
    Q = np.ones((3, 2))
    Q[1, 1] = np.nan
    assert score_rank_qr(Q, np.ones((3, 2)), 1.0) is None


def test_against_torch():
    torch = pytest.importorskip("torch")
    Q, K = low_rank(50, 10, 4), low_rank(70, 10, 6)
    S = torch.from_numpy(Q) @ torch.from_numpy(K).T * 0.3
    assert score_rank_qr(Q, K, 0.3) == int(torch.linalg.matrix_rank(S)) == 4
    want = torch.linalg.svdvals(S).numpy()[:10]
    np.testing.assert_allclose(score_singular_values(Q, K, 0.3), want, rtol=1e-9, atol=1e-12 * want[0])

"""Ranks of long float16 factors: the tolerance counts singular values, it does not grow with T.

With NumPy's max(rows, cols) · eps · σ_max, a float16 Q of 1024 x 64 had a tolerance of
1024 · 9.8e-4 · σ_max > σ_max, and the report printed rank S = rank Q = rank K = 0 beside
singular values of ~300.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.attention import attention
from attn_tui.core.ranks import factor_rank, numerical_rank, score_rank, score_rank_qr


def factors(T, d, r, dtype, seed=5):
    """Q, K (T x d) in dtype whose product has rank r ≤ d: Q's columns past r are copies of its first."""
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((T, d))
    Q[:, r:] = Q[:, :1]
    return Q.astype(dtype), rng.standard_normal((T, d)).astype(dtype)


@pytest.mark.parametrize("T", [1024, 4096])
def test_float16_factors_of_thousands_of_rows_keep_their_rank(T):
    Q, K = factors(T, 64, 40, np.float16)
    assert factor_rank(Q) == 40 and factor_rank(K) == 64
    assert score_rank_qr(Q, K, 1 / 8, np.float16) == 40


def test_full_s_and_its_qr_factors_agree_at_1024_float16():
    Q, K = factors(1024, 16, 9, np.float16)
    tr = attention(Q, K, np.eye(1024, 16), dtype=np.float16)
    assert tr.S.dtype == np.float16
    assert score_rank(tr.S, Q, K, tr.scale) == score_rank_qr(Q, K, tr.scale, np.float16) == 9
    assert numerical_rank(Q) == factor_rank(Q) == 9


def test_rounding_to_float16_is_not_counted_as_rank():
    # a rank-3 matrix rounded to float16: the rounding (≤ eps · ‖a‖_F) stays below the tolerance
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((2048, 3)) @ rng.standard_normal((3, 32))).astype(np.float16)
    assert factor_rank(a) == 3

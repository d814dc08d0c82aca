"""core.attention.matmul: the float16 product."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("seed", range(4))
def test_float16_matmul_is_numpys_float16_matmul(seed):
    """matmul: float16 via float32 is NumPy's own float16 product (which accumulates in float32)."""
    from attn_tui.core.attention import matmul

    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 300))
    a = (rng.standard_normal((24, d)) * rng.uniform(0.1, 30)).astype(np.float16)
    b = rng.standard_normal((d, 200)).astype(np.float16)
    got = matmul(a, b)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, a @ b)
    ones = np.ones((1, 4096), np.float16)
    assert matmul(ones, ones.T)[0, 0] == (ones @ ones.T)[0, 0] == 4096  # float16 alone would stop at 2048
    np.testing.assert_array_equal(matmul(a.astype(np.float64), b.astype(np.float64)), a.astype(np.float64) @ b)

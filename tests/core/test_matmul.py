"""core.attention.matmul: the float16 product.

No bit-for-bit comparison with another product: BLAS kernels (OpenBLAS picks one per CPU) sum
in their own order, with or without FMA, so two correct float32 sums of the same products differ
by rounding, and after the final rounding to float16 an element on a rounding boundary lands one
float16 ulp apart (seen: -166.625 vs -166.5 on an AMD EPYC's Haswell kernel). Each result is
checked against the exact product instead, within the error bound of the way it was computed.
"""

from __future__ import annotations

import numpy as np
import pytest


def gamma(n: int, dtype) -> float:
    """Higham's γ_n = n·u / (1 − n·u), u = eps/2: the bound on the relative error of a sum of n
    products in ``dtype`` in any order (|fl(Σ a_k b_k) − Σ a_k b_k| ≤ γ_n Σ |a_k b_k|), FMA or not."""
    u = float(np.finfo(dtype).eps) / 2
    return n * u / (1 - n * u)


def exact_product(a, b):
    """a @ b for float16 a and b, exact to far below a float16 ulp: every product of two float16
    numbers (11-bit significands) is exact in float64 (53 bits), and the float64 sum of d ≤ 300
    of them is off by at most γ_300 ≈ 1.7e-14 relative to Σ|a||b|."""
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("seed", range(4))
def test_float16_matmul_is_the_float32_product_rounded_once(seed):
    """matmul: float16 via float32, rounded once, like NumPy's own float16 product (which also
    accumulates in float32), to within that computation's error bound on any BLAS kernel."""
    from attn_tui.core.attention import matmul

    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 300))
    a = (rng.standard_normal((24, d)) * rng.uniform(0.1, 30)).astype(np.float16)
    b = rng.standard_normal((d, 200)).astype(np.float16)
    got = matmul(a, b)
    assert got.dtype == np.float16
    exact = exact_product(a, b)
    magnitude = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)  # Σ|a||b| per element
    # A float32 sum of d products is within γ_d(float32)·Σ|a||b| of the exact sum; rounding it once to
    # float16 adds at most half a float16 ulp of the result (spacing at |result|, the larger one at a
    # binade edge), and at most half the smallest subnormal (2^-25) near 0.
    half_ulp16 = np.spacing(np.abs(got)).astype(np.float64) / 2
    bound = gamma(d, np.float32) * magnitude + half_ulp16 + 2.0**-25
    assert np.all(np.abs(got.astype(np.float64) - exact) <= bound)
    # NumPy's float16 loop is held to the same bound: the two products differ by at most the sum of
    # their two bounds, which at these sizes is one float16 ulp (float32's error is ~1e-4 of it)
    want = a @ b
    assert np.all(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= 2 * bound)
    ones = np.ones((1, 4096), np.float16)
    assert matmul(ones, ones.T)[0, 0] == (ones @ ones.T)[0, 0] == 4096  # float16 alone would stop at 2048


@pytest.mark.parametrize("seed", range(4))
def test_float16_matmul_beats_a_float16_accumulation(seed):
    """The bound above can fail: summing in float16 (what matmul must not do) misses it at these
    sizes, so the test of the float32 path is not vacuous."""
    rng = np.random.default_rng(seed)
    d = 256
    a = (rng.standard_normal((24, d)) * 10).astype(np.float16)
    b = rng.standard_normal((d, 200)).astype(np.float16)
    acc = np.zeros((24, 200), np.float16)
    for k in range(d):  # a float16 accumulator, rounded after every add
        acc = (acc + np.outer(a[:, k], b[k]).astype(np.float16)).astype(np.float16)
    magnitude = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    bound = gamma(d, np.float32) * magnitude + np.spacing(np.abs(acc)).astype(np.float64) / 2 + 2.0**-25
    assert np.any(np.abs(acc.astype(np.float64) - exact_product(a, b)) > bound)


def test_float64_matmul_is_the_float64_product():
    """float64 goes straight to BLAS: within γ_d(float64)·Σ|a||b| of the exact product (a, b are
    float16 values, so the float64 reference computed exactly the same way is exact to ~1e-14)."""
    from attn_tui.core.attention import matmul

    rng = np.random.default_rng(7)
    a = rng.standard_normal((24, 200)).astype(np.float16).astype(np.float64)
    b = rng.standard_normal((200, 30)).astype(np.float16).astype(np.float64)
    got = matmul(a, b)
    assert got.dtype == np.float64
    magnitude = np.abs(a) @ np.abs(b)
    # two float64 sums of the same 200 products, each within γ_200(float64)·Σ|a||b| of the exact one
    assert np.all(np.abs(got - a @ b) <= 2 * gamma(200, np.float64) * magnitude)
    assert not np.allclose(matmul(a, b[:, ::-1]), got)  # not trivially true: another product differs

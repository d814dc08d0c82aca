"""core.stream with a huge V. O = A V: row_stats sums e^(x−m) v before dividing by l, so 600
keys of V = 1e308 overflowed to inf (and first_overflow warned "O overflows float64") where the
dense O is 1e308. V is now scaled by a power of two inside the sum when max|V| · T' could overflow
(core.stream._v_down, 4d26b35): by 2^-k (2^k >= 2T') exactly when max|V| · T' reaches a quarter
of float64's maximum (the margin below overflow), and not below it, where O stays bit for bit the
unscaled sum; facts() of such a V reports an infinite row norm without a NumPy warning (written
to kill the mutants, scripts/mutation.sh). Expectations come from NumPy in the test, not from stream.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core import stream
from attn_tui.core.attention import attention
from attn_tui.core.limits import compute_problem
from attn_tui.core.scenario import Scenario
from attn_tui.core.stream import Source, _v_down, row_stats


@pytest.mark.parametrize("T_k", [600, 513, 4096])
def test_a_huge_v_gives_the_dense_o_not_inf(T_k):
    rng = np.random.default_rng(T_k)
    Q, K = np.full((2, 1), 1e154), np.full((T_k, 1), 1e154)
    V = np.full((T_k, 2), 1e308) * np.where(rng.random((T_k, 2)) < 0.5, -1.0, 1.0)
    s = Scenario(Q=Q, K=K, V=V, mask="none")
    src = Source.of(s)
    assert _v_down(src) == 2.0 ** -(int(np.ceil(np.log2(T_k))) + 1)
    dense = attention(Q, K, V).O  # every score equal: O is V's column mean
    O = row_stats(src, 0, 2, top=0).O
    assert np.all(np.isfinite(O))
    np.testing.assert_allclose(O, dense, rtol=1e-12, atol=1e308 * 1e-12)
    assert compute_problem(s) is None


def test_an_ordinary_v_is_not_scaled_and_o_is_bit_for_bit_as_before():
    rng = np.random.default_rng(4)
    s = Scenario(Q=rng.standard_normal((40, 3)), K=rng.standard_normal((700, 3)), V=rng.standard_normal((700, 5)))
    src = Source.of(s)
    assert _v_down(src) == 1.0
    st = row_stats(src, 0, 40, top=0)
    m, l = st.m[:, None], st.l[:, None]  # noqa: E741
    X = src.masked(0, 40, 0, 700)
    want = (np.exp(X - m) @ src.V) / l
    np.testing.assert_allclose(st.O, want, rtol=1e-13)


BIG = float(np.finfo(np.float64).max)


def test_facts_of_a_v_whose_row_norm_overflows_says_inf_without_a_warning():
    V = np.full((3, 2), 1e308)  # a fresh array: facts() caches by object
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi, norm = stream.facts(V)
    assert (lo, hi, norm) == (1e308, 1e308, np.inf)


def huge_v(T_k: int, frac: float) -> Scenario:
    """Equal scores (Q = 0), mask none: every weight is 1/T', so O is V's column mean. max|V| · T'
    is frac · float64's max; the second column holds ordinary numbers."""
    rng = np.random.default_rng(T_k)
    V = np.empty((T_k, 2))
    V[:, 0] = frac * BIG / T_k * np.where(rng.random(T_k) < 0.5, -1.0, 1.0)
    V[:, 1] = rng.standard_normal(T_k)
    return Scenario(Q=np.zeros((3, 2)), K=rng.standard_normal((T_k, 2)), V=V, mask="none")


@pytest.mark.parametrize("T_k", [3, 600])
@pytest.mark.parametrize("frac", [0.22, 0.249])
def test_a_v_below_a_quarter_of_the_max_is_not_scaled_and_o_is_the_plain_sum(T_k, frac):
    src = stream.Source.of(huge_v(T_k, frac))
    assert stream._v_down(src) == 1.0
    st = stream.row_stats(src, 0, 3, top=0)
    e = np.exp(src.masked(0, 3, 0, T_k) - st.m[:, None])
    np.testing.assert_array_equal(st.O, (e @ src.V) / st.l[:, None])


@pytest.mark.parametrize("T_k", [3, 600])
@pytest.mark.parametrize("frac", [0.26, 0.5, 0.99])
def test_a_v_from_a_quarter_of_the_max_is_scaled_by_a_power_of_two_at_or_below_one_over_2t(T_k, frac):
    s = huge_v(T_k, frac)
    src = stream.Source.of(s)
    down = stream._v_down(src)
    k = -np.log2(down)
    assert k == int(k) and 2.0**k >= 2 * T_k and 2.0 ** (k - 1) < 2 * T_k
    O = stream.row_stats(src, 0, 3, top=0).O
    np.testing.assert_allclose(O, attention(s.Q, s.K, s.V).O, rtol=1e-12, atol=BIG * 1e-15)

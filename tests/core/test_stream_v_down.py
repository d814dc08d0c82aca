"""row_stats' scaling of a huge V (core.stream._v_down, 4d26b35), written to kill its mutants
(scripts/mutation.sh): V is scaled by 2^-k (2^k >= 2T') exactly when max|V| · T' reaches a quarter
of float64's maximum (the margin below overflow), and not below it, where O stays bit for bit the
unscaled sum; facts() of such a V reports an infinite row norm without a NumPy warning.
Expectations come from NumPy in the test, not from stream."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core import stream
from attn_tui.core.attention import attention
from attn_tui.core.scenario import Scenario

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

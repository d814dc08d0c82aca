"""O = A V of a huge V: row_stats sums e^(x−m) v before dividing by l, so 600 keys of V = 1e308
overflowed to inf (and first_overflow warned "O overflows float64") where the dense O is 1e308.
V is now scaled by a power of two inside the sum when max|V| · T' could overflow."""

from __future__ import annotations

import numpy as np
import pytest

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

"""Property tests of the core: the invariants the lesson states, on random inputs."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_tui.core import (
    attention,
    causal_mask,
    entropy_bits,
    lenses,
    row_entropies_bits,
    softmax,
)
from attn_tui.core.attention import additive_mask, blocked_cells

FINITE = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


@st.composite
def qkv(draw, cross=True):
    """Q (T, d_k), K and V (T', d_k / d_v) with small entries."""
    T = draw(st.integers(1, 7))
    T_k = draw(st.integers(1, 7)) if cross else T
    d_k = draw(st.integers(1, 6))
    d_v = draw(st.integers(1, 5))
    Q = draw(arrays(np.float64, (T, d_k), elements=FINITE))
    K = draw(arrays(np.float64, (T_k, d_k), elements=FINITE))
    V = draw(arrays(np.float64, (T_k, d_v), elements=FINITE))
    return Q, K, V


@st.composite
def causal_case(draw):
    Q, K, V = draw(qkv(cross=False))
    fill = draw(st.sampled_from(["-1e9", "-inf", "min"]))
    return Q, K, V, fill


@settings(max_examples=150, deadline=None)
@given(causal_case())
def test_rows_sum_to_one_and_masked_entries_exactly_zero(case):
    Q, K, V, fill = case
    T = Q.shape[0]
    tr = attention(Q, K, V, mask=causal_mask(T, fill=fill))
    np.testing.assert_allclose(tr.A.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(tr.A[np.triu_indices(T, 1)] == 0.0)  # exactly, not approximately
    assert np.all(tr.A >= 0.0)
    assert tr.nan_rows == ()  # a causal row always keeps its diagonal


@settings(max_examples=100, deadline=None)
@given(qkv(), st.data())
def test_padding_masked_columns_exactly_zero(case, data):
    Q, K, V = case
    T, T_k = Q.shape[0], K.shape[0]
    pad = data.draw(st.lists(st.integers(0, T_k - 1), max_size=T_k - 1, unique=True))
    blocked = blocked_cells("none", T, T_k, pad)
    tr = attention(Q, K, V, mask=additive_mask(blocked, "-1e9"))
    assert np.all(tr.A[:, pad] == 0.0)
    np.testing.assert_allclose(tr.A.sum(axis=1), 1.0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 8)), elements=FINITE),
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=6, max_size=6),
)
def test_softmax_invariant_to_per_row_shift(S, shifts):
    shift = np.array(shifts[: S.shape[0]])[:, None]  # (T, 1): one constant per row
    np.testing.assert_allclose(softmax(S + shift), softmax(S), rtol=1e-9, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(causal_case())
def test_entropy_between_zero_and_log2_t(case):
    Q, K, V, fill = case
    T = Q.shape[0]
    tr = attention(Q, K, V, mask=causal_mask(T, fill=fill))
    H = row_entropies_bits(tr.A)
    t = np.arange(1, T + 1)  # row t sees t keys
    assert np.all(H >= 0.0)
    assert np.all(H <= np.log2(t) + 1e-9)
    np.testing.assert_allclose(tr.eff, 2**H)


@given(
    arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 8)), elements=st.floats(0, 1)),
    st.lists(st.integers(0, 5), max_size=3),
)
def test_row_entropies_match_entropy_bits_row_by_row(w, nan_rows):
    """The vectorised row entropies equal entropy_bits on each row: zeros (0·log 0 = 0),
    one-hot rows (exactly 0), NaN rows (NaN)."""
    A = w / np.where(w.sum(axis=1, keepdims=True) > 0, w.sum(axis=1, keepdims=True), 1.0)
    for r in nan_rows:
        if r < A.shape[0]:
            A[r, 0] = np.nan
    H = row_entropies_bits(A)
    expected = np.array([entropy_bits(row) for row in A])
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-15)
    assert np.array_equal(np.isnan(H), np.isnan(expected))
    one_hot = ((A > 0).sum(axis=1) == 1) & ~np.isnan(A).any(axis=1)
    assert np.all(H[one_hot] == 0.0) and not np.signbit(H[one_hot]).any()


@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=20))
def test_entropy_bits_bounds_and_zero_log_zero(w):
    w = np.array(w)
    if w.sum() == 0:
        w = np.ones_like(w)
    p = w / w.sum()
    h = entropy_bits(p)
    assert 0.0 <= h <= np.log2(len(p)) + 1e-9
    assert entropy_bits(np.r_[p, 0.0, 0.0]) == h  # zeros add nothing: 0 log 0 = 0


@settings(max_examples=100, deadline=None)
@given(causal_case())
def test_nadaraya_watson_row_equals_output_row(case):
    Q, K, V, fill = case
    T = Q.shape[0]
    tr = attention(Q, K, V, mask=causal_mask(T, fill=fill))
    for t in range(T):
        nw, _ = lenses.nadaraya_watson_row(Q, K, V, t, tr.scale, tr.blocked)
        np.testing.assert_allclose(nw, tr.O[t], rtol=1e-9, atol=1e-12)


E257, E271 = 3.1e-257, 3.90086753e-271  # tiny entries hypothesis found: rank S 2 > min(rank Q, rank K) = 1


def _tiny_case(e):
    return (np.array([[1.0, e], [e, e]]), np.array([[e, 1.0], [e, e]]), np.zeros((2, 1)))


@settings(max_examples=150, deadline=None)
@given(qkv(), st.sampled_from(["float64", "float32", "float16"]))
@example(_tiny_case(E257), "float64")
@example(_tiny_case(E271), "float64")
def test_rank_of_scores_at_most_dk(case, dtype):
    """rank S <= min(rank Q, rank K) <= d_k, measured in the trace's dtype; S = Q Kᵀ forbids more."""
    Q, K, V = case
    tr = attention(Q, K, V, dtype=dtype)
    if tr.rank_S is None:  # float16 overflow: no rank to compare
        assert not np.all(np.isfinite(tr.S))
        return
    assert tr.rank_S <= min(tr.rank_Q, tr.rank_K) <= Q.shape[1]
    info = lenses.rank_info(tr.S, tr.Q, tr.K)  # the lens reads the same ranks
    assert (info["S"], info["Q"], info["K"]) == (tr.rank_S, tr.rank_Q, tr.rank_K)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rank_q_one_stays_one_in_low_precision(dtype):
    """A rank-1 Q rounded to float32/float16: S = Q Kᵀ has rank 1 in that precision
    (float64's tolerance counted the rounding as rank: rank S 2..5 > rank Q)."""
    rng = np.random.default_rng(0)
    Q = np.outer(rng.normal(size=5), rng.normal(size=3))
    K = rng.normal(size=(6, 3))
    tr = attention(Q, K, np.eye(6), dtype=dtype)
    assert (tr.rank_Q, tr.rank_K, tr.rank_S) == (1, 3, 1)


@settings(max_examples=50, deadline=None)
@given(qkv(cross=False), st.integers(0, 6))
def test_fully_masked_row_nan_with_inf_fill_finite_with_finite_fill(case, row):
    Q, K, V = case
    T = Q.shape[0]
    row = row % T
    blocked = blocked_cells("causal", T)
    blocked[row] = True  # this query may see nothing
    inf = attention(Q, K, V, mask=additive_mask(blocked, "-inf"))
    assert row in inf.nan_rows and np.all(np.isnan(inf.A[row]))
    assert set(inf.nan_rows) == {row}
    for fill in ("-1e9", "min"):
        fin = attention(Q, K, V, mask=additive_mask(blocked, fill))
        assert fin.nan_rows == () and np.all(np.isfinite(fin.A))


def test_float16_minus_1e9_fill_becomes_minus_inf():
    M = causal_mask(4, fill=-1e9, dtype=np.float16)
    assert M.dtype == np.float16
    assert np.all(np.isneginf(M[np.triu_indices(4, 1)]))
    assert np.all(M[np.tril_indices(4)] == 0)
    assert np.isfinite(causal_mask(4, fill="min", dtype=np.float16)).all()
    assert causal_mask(4, fill=-1e9, dtype=np.float32)[0, 1] == np.float32(-1e9)


def test_dtype_is_kept_through_the_trace():
    for dt in (np.float16, np.float32, np.float64):
        tr = attention(np.eye(3), np.eye(3), np.eye(3), mask=causal_mask(3, dtype=dt), dtype=dt)
        assert tr.A.dtype == dt and tr.S.dtype == dt and tr.O.dtype == dt


def test_boolean_mask_is_blocked_cells():
    blocked = blocked_cells("causal", 3)
    a = attention(np.eye(3), np.eye(3), np.eye(3), mask=blocked)
    b = attention(np.eye(3), np.eye(3), np.eye(3), mask=causal_mask(3))
    np.testing.assert_array_equal(a.A, b.A)
    np.testing.assert_array_equal(a.blocked, blocked)

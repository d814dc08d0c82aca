"""Value- and info-weighted attention (core.heads.weighting) against loops over keys, written here
from the definitions, and on a head whose answer is known by construction (a sink with a tiny value)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.attention import blocked_cells, softmax
from attn_tui.core.heads import weighting
from attn_tui.core.heads.demo import memory_reader
from attn_tui.core.heads.source import HeadSource

EPS = np.finfo(np.float64).eps


def loop_weighted(A, vectors):
    """A[t][j] · |vectors[j]| / max_k |vectors[k]|, with loops (vectors: one list per key)."""
    norms = [math.sqrt(sum(x * x for x in v)) for v in vectors]
    top = max(norms)
    return [[A[t][j] * norms[j] / top if top > 0 else 0.0 for j in range(len(norms))] for t in range(len(A))]


def loop_times(V, W):
    return [[sum(V[j][a] * W[a][b] for a in range(len(W))) for b in range(len(W[0]))] for j in range(len(V))]


def a_head(seed, T=7, d_v=3, d_model=5, H=2):
    rng = np.random.default_rng(seed)
    blocked = blocked_cells("causal", T, T)
    A = softmax(np.where(blocked, -np.inf, rng.normal(0, 2, (T, T))))
    return A, rng.normal(size=(T, d_v)), rng.normal(size=(H * d_v, d_model))


def close(got, want, scale=1.0):
    np.testing.assert_allclose(got, np.array(want), rtol=0, atol=64 * EPS * scale)


@pytest.mark.parametrize("seed", range(5))
def test_value_weighted_is_the_loop(seed):
    A, V, _ = a_head(seed)
    got = weighting.weigh(A, weighting.scale_for("value", V))
    close(got, loop_weighted(A.tolist(), V.tolist()))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("head", [0, 1])
def test_info_weighted_is_the_loop_through_the_heads_rows_of_w_o(seed, head):
    A, V, W_O = a_head(seed)
    d_v = V.shape[1]
    W_h = W_O.tolist()[head * d_v : (head + 1) * d_v]  # the head's d_v rows, sliced here by hand
    got = weighting.weigh(A, weighting.scale_for("info", V, weighting.head_w_o(W_O, 2, head)))
    close(got, loop_weighted(A.tolist(), loop_times(V.tolist(), W_h)), scale=10.0)


def test_one_row_costs_one_multiply_and_equals_its_row_of_the_head():
    A, V, _ = a_head(3)
    scale = weighting.scale_for("value", V)
    whole = weighting.weigh(A, scale)
    np.testing.assert_array_equal(weighting.weigh(A[4], scale), whole[4])


def test_a_sink_with_a_tiny_value_goes_dark_and_rows_sum_below_one():
    T = 5
    A = np.zeros((T, T))
    A[:, 0] = 0.9  # every row puts 0.9 on the first token
    for t in range(T):
        A[t, t if t else 0] += 0.1
    V = np.ones((T, 2))
    V[0] = 1e-3  # ... whose value is tiny
    vw = weighting.weigh(A, weighting.scale_for("value", V))
    assert vw[1:, 0].max() < 1e-3  # the sink, 0.9 of each row, moves almost nothing
    assert np.all(vw[1:].sum(axis=1) < 0.2)
    assert np.all(vw <= A + EPS)


def test_kind_a_is_a_itself_and_nan_rows_stay_nan():
    A, V, _ = a_head(1)
    A[2] = np.nan
    np.testing.assert_array_equal(weighting.weigh(A, weighting.scale_for("A", V)), A)
    assert np.isnan(weighting.weigh(A, weighting.scale_for("value", V))[2]).all()


def test_zero_values_move_nothing_and_info_without_w_o_is_none():
    A, _, _ = a_head(2)
    assert not weighting.weigh(A, weighting.scale_for("value", np.zeros((7, 3)))).any()
    assert weighting.scale_for("info", np.ones((7, 3))) is None
    with pytest.raises(ValueError, match="weighting"):
        weighting.scale_for("bogus", np.ones((7, 3)))


def test_the_cycle_skips_info_without_w_o():
    order = []
    kind = "A"
    for _ in range(3):
        kind = weighting.next_kind(kind, has_w_o=True)
        order.append(kind)
    assert order == ["value", "info", "A"]
    assert weighting.next_kind("value", has_w_o=False) == "A"


def test_head_scale_reads_the_heads_kv_head_and_its_w_o_rows():
    rng = np.random.default_rng(5)
    L, H, H_kv, T, d = 2, 4, 2, 6, 3
    arrays = {
        "Q": rng.normal(size=(L, H, T, d)),
        "K": rng.normal(size=(L, H_kv, T, d)),
        "V": rng.normal(size=(L, H_kv, T, d)),
        "W_O": rng.normal(size=(L, H * d, 4)),
    }
    src = HeadSource(
        title="t",
        source="test",
        tokens=tuple("abcdef"),
        ids=tuple("abcdef"),
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=(0, 0, 1, 1),
        scales=(1.0, 1.0),
        masks=(("causal", None),) * 2,
        dtype="float64",
        read=memory_reader(arrays),
    )
    V = arrays["V"][1, 1].tolist()  # head 3 of layer 1 reads K/V head 1
    W = arrays["W_O"][1].tolist()[3 * d : 4 * d]
    ones = [[1.0] * T]
    close([weighting.head_scale(src, 1, 3, "value")], loop_weighted(ones, V))
    close([weighting.head_scale(src, 1, 3, "info")], loop_weighted(ones, loop_times(V, W)), scale=10.0)


def test_the_heads_screens_picture_pools_the_weighted_a_and_keeps_as_readings():
    from attn_tui.core.heads import open_heads
    from attn_tui.core.heads.layer_view import head_view
    from attn_tui.core.heads.source import head_scenario

    src = open_heads("induction-demo", "a b c a b c")
    A = head_scenario(src, 1, 0).run().A.astype(np.float64)
    V = src.read("V", 1, src.kv_head[0]).tolist()
    want = loop_weighted(A.tolist(), V)
    plain, weighted = head_view(src, 1, 0, bins=16), head_view(src, 1, 0, bins=16, weighting="value")
    close(weighted.thumb, want)  # T <= bins: the picture is the weighted A itself
    assert weighted.readings == plain.readings

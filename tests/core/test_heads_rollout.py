"""Attention rollout (core.heads.rollout) against a loop over layers written here from the definition
(Ā_l the heads' mean A, Ã_l = ½ Ā_l + ½ I, R = Ã_{L−1} ⋯ Ã_0), on grouped K/V heads with a causal and
a window mask; the rows asked for equal R's rows, in blocks; a head whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.heads import rollout as ro
from attn_tui.core.heads.demo import memory_reader
from attn_tui.core.heads.source import HeadSource, head_scenario
from tests.core.test_heads_readings import a_source

EPS = np.finfo(np.float64).eps


def loop_rollout(src):
    T = src.T
    R = [[float(i == j) for j in range(T)] for i in range(T)]
    for layer in range(src.n_layers):
        As = [head_scenario(src, layer, h).run().A.tolist() for h in range(src.n_heads)]
        tilde = [[0.5 * sum(A[i][j] for A in As) / len(As) + 0.5 * (i == j) for j in range(T)] for i in range(T)]
        R = [[sum(tilde[i][k] * R[k][j] for k in range(T)) for j in range(T)] for i in range(T)]
    return np.array(R)


@pytest.mark.parametrize("seed", range(3))
def test_rollout_is_the_loop_over_layers(seed, monkeypatch):
    monkeypatch.setattr(ro, "ROWS", 4)  # several row blocks
    src, _ = a_source(seed)  # 2 layers x 4 heads over 2 K/V heads; causal, then a window of 2
    want = loop_rollout(src)
    got = ro.rollout(src)
    np.testing.assert_allclose(got, want, rtol=0, atol=64 * EPS)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=64 * EPS)
    rows = [0, 4, 8]
    np.testing.assert_allclose(ro.rollout_rows(src, rows), want[rows], rtol=0, atol=64 * EPS)


def hand_source(A_layers):
    """A source whose heads' A are given: Q = K = 0 would be uniform, so we build scores whose softmax is
    the pattern: S = log(A) (0 -> blocked by the causal mask or -1e9). One head, d_k = T."""
    L, T = len(A_layers), len(A_layers[0])
    with np.errstate(divide="ignore"):
        logs = [np.where(A > 0, np.log(np.maximum(A, 1e-300)), -1e9) for A in A_layers]
    arrays = {
        "Q": np.stack([S[None] for S in logs]),  # (L, 1, T, T): Q = S, K = I, scale 1: QKᵀ = S
        "K": np.stack([np.eye(T)[None]] * L),
        "V": np.stack([np.eye(T)[None]] * L),
    }
    return HeadSource(
        title="hand",
        source="test",
        tokens=tuple(f"x{i}" for i in range(T)),
        ids=tuple(range(T)),
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=(0,),
        scales=(1.0,) * L,
        masks=(("none", None),) * L,
        dtype="float64",
        read=memory_reader(arrays),
    )


def test_two_previous_token_layers_reach_two_back_by_a_quarter():
    """Each layer: every row (but the first) all on the token before. Ã = ½ I + ½ P; two layers:
    ¼ I + ½ P + ¼ P², so R[t, t-2] = ¼ by construction."""
    T = 5
    P = np.zeros((T, T))
    P[0, 0] = 1
    for t in range(1, T):
        P[t, t - 1] = 1
    R = ro.rollout(hand_source([P, P]))
    assert R[4, 2] == pytest.approx(0.25, abs=1e-6) and R[4, 3] == pytest.approx(0.5, abs=1e-6)
    assert R[4, 4] == pytest.approx(0.25, abs=1e-6)


def test_keys_of_another_sequence_and_positions_out_of_range_are_refused():
    src, _ = a_source(0)
    with pytest.raises(ValueError, match="--query: positions go from 1 to 9"):
        ro.rollout_rows(src, [9])
    cross, _ = a_source(0)
    cross = HeadSource(**{**cross.__dict__, "shapes": {**cross.shapes, "K": (2, 2, 11, 3)}})
    with pytest.raises(ValueError, match="keys are another sequence"):
        ro.rollout(cross)


def test_above_whole_the_whole_matrix_is_refused_with_the_way_out(monkeypatch):
    monkeypatch.setattr(ro, "WHOLE", 4)
    src, _ = a_source(1)
    with pytest.raises(ValueError, match="--query"):
        ro.rollout(src)
    assert ro.rollout_rows(src, [8]).shape == (1, 9)


def test_rows_of_a_long_source_never_hold_a_t_by_t_matrix(monkeypatch):
    import tracemalloc

    from attn_tui.core.heads import source

    # The source's cache of mask row blocks (shared by every reading) is not rollout's: measured without it.
    monkeypatch.setattr(source, "mask_rows", source._mask_rows)

    T = 3000
    rng = np.random.default_rng(3)
    arrays = {k: rng.normal(size=(2, 2, T, 4)) for k in ("Q", "K", "V")}
    src = HeadSource(
        title="long",
        source="test",
        tokens=("x",) * T,
        ids=(0,) * T,
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=(0, 1),
        scales=(0.5, 0.5),
        masks=(("causal", None),) * 2,
        dtype="float64",
        read=memory_reader(arrays),
    )
    tracemalloc.start()
    try:
        r = ro.rollout_rows(src, [T - 1, 10])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < T * T * 8 / 2, peak  # one T x T float64 matrix is 72 MB
    np.testing.assert_allclose(r.sum(axis=1), 1.0, rtol=0, atol=T * EPS)
    assert not r[1, 11:].any()  # causal: row 11 (from 1) reaches no later token


def test_the_heads_screens_picture_of_r_pools_it_as_a_heads_a():
    src, _ = a_source(2)  # T = 9
    R = loop_rollout(src)
    np.testing.assert_allclose(ro.rollout_picture(src, bins=16), R, rtol=0, atol=64 * EPS)  # T <= bins: R itself
    pic = ro.rollout_picture(src, bins=3)  # rows and keys in bins of 3
    want = [
        [sum(R[t, j] for t in range(3 * a, 3 * a + 3) for j in range(3 * b, 3 * b + 3)) / 3 for b in range(3)]
        for a in range(3)
    ]
    np.testing.assert_allclose(pic, want, rtol=0, atol=64 * EPS)
    np.testing.assert_allclose(pic.sum(axis=1), 1.0, rtol=0, atol=64 * EPS)


def test_an_additive_mask_counts_as_each_heads_a_does():
    """An additive M (ALiBi-like finite slopes, plus blocked keys): rollout from A = softmax(scale QKᵀ + M)
    written here with loops, not through head_scenario (which takes causal, none or window only)."""
    rng = np.random.default_rng(4)
    L, H, T, d = 2, 2, 6, 3
    arrays = {k: rng.normal(size=(L, H, T, d)) for k in ("Q", "K", "V")}
    dist = np.subtract.outer(np.arange(T), np.arange(T)).astype(float)
    arrays["M"] = np.stack([np.where(dist < 0, -1e9, -0.3 * (ly + 1) * dist) for ly in range(L)])
    src = HeadSource(
        title="alibi",
        source="test",
        tokens=tuple("abcdef"),
        ids=tuple("abcdef"),
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=(0, 1),
        scales=(0.5, 0.7),
        masks=(("additive", None),) * L,
        dtype="float64",
        read=memory_reader(arrays),
    )
    R = [[float(i == j) for j in range(T)] for i in range(T)]
    for ly in range(L):
        bar = [[0.0] * T for _ in range(T)]
        for h in range(H):
            Q, K, M = arrays["Q"][ly, h], arrays["K"][ly, h], arrays["M"][ly]
            for i in range(T):
                s = [src.scales[ly] * sum(Q[i][a] * K[j][a] for a in range(d)) + M[i][j] for j in range(T)]
                e = [math.exp(x - max(s)) for x in s]
                for j in range(T):
                    bar[i][j] += e[j] / sum(e) / H
        tilde = [[0.5 * bar[i][j] + 0.5 * (i == j) for j in range(T)] for i in range(T)]
        R = [[sum(tilde[i][k] * R[k][j] for k in range(T)) for j in range(T)] for i in range(T)]
    np.testing.assert_allclose(ro.rollout(src), R, rtol=0, atol=64 * EPS)

"""The seeded experiments checked against their formulas, recomputed here from the same
generator draws (numpy's default_rng, as documented), not only for their shape.

Stated tolerance for the variance claims: 10 % at n = 5000 samples. The relative standard
error of a variance estimate of q·k (kurtosis 3 + 6/d_k) is at most sqrt(3.5/5000) ≈ 2.7 %,
so 10 % is more than three standard errors at every d_k; the seed is fixed, so the check
is deterministic.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from attn_tui.core import experiments

N, SEED = 5000, 8
DKS = (4, 64, 512)


def draws(d_k, n=N, seed=SEED):
    """q, k ~ N(0, I_{d_k}), n of each: q drawn first, then k, from default_rng(seed)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k))


def softmax(x):
    e = [math.exp(v - max(x)) for v in x]
    return np.array(e) / math.fsum(e)


def entropy(p):
    return -math.fsum(v * math.log2(v) for v in p if v > 0)


@pytest.mark.parametrize("d_k", DKS)
def test_var_of_qk_is_d_k_and_var_of_scaled_qk_is_one(d_k):
    q, k = draws(d_k)
    dots = (q * k).sum(axis=1)
    np.testing.assert_allclose(experiments.dot_samples(d_k, N, SEED), dots, rtol=1e-12, atol=1e-12)
    assert np.var(dots) == pytest.approx(d_k, rel=0.10)  # Var(q·k) ≈ d_k
    assert np.var(dots / math.sqrt(d_k)) == pytest.approx(1.0, rel=0.10)  # Var(q·k/√d_k) ≈ 1
    assert np.var(dots / d_k) == pytest.approx(1.0 / d_k, rel=0.10)  # /d_k over-corrects (d_k > 1)
    (row,) = experiments.variance([d_k], N, SEED)
    assert row["d_k"] == d_k
    assert row["var"] == pytest.approx(np.mean(dots**2), rel=1e-12)  # mean of squares: the mean is ~0
    assert row["ratio"] == pytest.approx(np.mean(dots**2) / d_k, rel=1e-12)


def test_variance_rows_use_seed_plus_j_and_report_progress():
    calls = []
    rows = experiments.variance(DKS, n=2000, seed=3, progress=lambda done, total: calls.append((done, total)))
    assert [r["d_k"] for r in rows] == list(DKS)
    for j, (d_k, row) in enumerate(zip(DKS, rows)):
        q, k = draws(d_k, 2000, 3 + j)
        want = np.mean(((q * k).sum(axis=1)) ** 2)
        assert row["var"] == pytest.approx(want, rel=1e-12)
        assert row["ratio"] == pytest.approx(want / d_k, rel=1e-12)
    assert calls == [(1, 3), (2, 3), (3, 3)]
    q, k = draws(16, 10, 1)
    assert experiments.variance([16], n=10, seed=1)[0]["var"] == pytest.approx(
        np.mean((q * k).sum(axis=1) ** 2), rel=1e-12
    )


def test_defaults_are_the_lessons():
    assert experiments.DKS == (4, 64, 512)
    np.testing.assert_allclose(experiments.SWEEP, [0.1 + 0.1 * i for i in range(30)], rtol=1e-12)
    rows = experiments.variance()  # n = 5000, seed 8: what the report prints
    for j, (d_k, row) in enumerate(zip(DKS, rows)):
        q, k = draws(d_k, 5000, 8 + j)
        assert row["var"] == pytest.approx(np.mean(((q * k).sum(axis=1)) ** 2), rel=1e-12)


@pytest.mark.parametrize("d_k, T, seed", [(512, 8, 8), (64, 5, 3), (16, 12, 0)])
def test_saturation_rows_from_the_draws(d_k, T, seed):
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((T, d_k))
    K = rng.standard_normal((T, d_k))
    s = [float(np.dot(Q[0], K[i])) for i in range(T)]  # row 1 of Q Kᵀ
    unscaled, scaled = softmax(s), softmax([v / math.sqrt(d_k) for v in s])
    sat = experiments.saturation(d_k=d_k, T=T, seed=seed)
    assert sat["unscaled"]["max"] == pytest.approx(unscaled.max(), rel=1e-9)
    assert sat["unscaled"]["H"] == pytest.approx(entropy(unscaled), rel=1e-9, abs=1e-12)
    assert sat["scaled"]["max"] == pytest.approx(scaled.max(), rel=1e-9)
    assert sat["scaled"]["H"] == pytest.approx(entropy(scaled), rel=1e-9)
    assert sat["log2_T"] == math.log2(T)


def test_saturation_at_the_lessons_size_is_one_hot_unscaled_and_spread_scaled():
    sat = experiments.saturation()
    assert sat["unscaled"]["max"] > 0.99 and sat["unscaled"]["H"] < 0.1
    assert 1.0 < sat["scaled"]["H"] <= 3.0 and sat["log2_T"] == 3.0


@pytest.mark.parametrize("T, d_k, seed", [(8, 16, 16), (5, 3, 1), (11, 40, 7)])
def test_sweep_scores_rows_and_entropies(T, d_k, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d_k)
    K = rng.standard_normal((T, d_k))
    s = [float(np.dot(K[i], q)) / math.sqrt(d_k) for i in range(T)]  # q·k_i/√d_k
    np.testing.assert_allclose(experiments.sweep_scores(T, d_k, seed), s, rtol=1e-12)
    cs = (0.1, 0.7, 1.0, 2.5)
    frames = experiments.scale_sweep(cs, T, d_k, seed)
    assert [f["c"] for f in frames] == list(cs)
    for c, f in zip(cs, frames):
        p = softmax([c * v for v in s])
        np.testing.assert_allclose(f["row"], p, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(f["scores"], [c * v for v in s], rtol=1e-12)
        assert f["H"] == pytest.approx(entropy(p), rel=1e-9)
    got = experiments.entropies_at(cs, T, d_k, seed)
    np.testing.assert_allclose(got, [entropy(softmax([c * v for v in s])) for c in cs], rtol=1e-9)


def test_the_default_sweep_is_thirty_frames_with_falling_entropy():
    frames = experiments.scale_sweep()
    assert len(frames) == 30 and frames[0]["c"] == pytest.approx(0.1) and frames[-1]["c"] == pytest.approx(3.0)
    H = [f["H"] for f in frames]
    assert all(a > b for a, b in itertools.pairwise(H))
    assert len(experiments.sweep_scores()) == 8
    np.testing.assert_allclose(
        experiments.entropies_at(),
        [entropy(softmax([c * v for v in experiments.sweep_scores()])) for c in (0.1, 1.0, 3.0)],
        rtol=1e-9,
    )


def test_every_default_is_the_lessons_draw():
    """Called without arguments, each experiment is the report's: n 5000 and seed 8 for q·k,
    d_k 512, T 8, seed 8 for saturation, T 8, d_k 16, seed 16 for the sweep."""
    q, k = draws(4, 5000, 8)
    np.testing.assert_allclose(experiments.dot_samples(4), (q * k).sum(axis=1), rtol=1e-12, atol=1e-12)
    rng = np.random.default_rng(8)
    Q, K = rng.standard_normal((8, 512)), rng.standard_normal((8, 512))
    s = [float(np.dot(Q[0], K[i])) for i in range(8)]
    sat = experiments.saturation()
    assert sat["unscaled"]["max"] == pytest.approx(softmax(s).max(), rel=1e-9)
    assert sat["scaled"]["H"] == pytest.approx(entropy(softmax([v / math.sqrt(512) for v in s])), rel=1e-9)
    rng = np.random.default_rng(16)
    q1 = rng.standard_normal(16)
    K1 = rng.standard_normal((8, 16))
    s1 = [float(np.dot(K1[i], q1)) / 4.0 for i in range(8)]
    np.testing.assert_allclose(experiments.sweep_scores(), s1, rtol=1e-12)
    frames = experiments.scale_sweep()
    np.testing.assert_allclose([f["c"] for f in frames], np.linspace(0.1, 3.0, 30), rtol=1e-15)
    for f in frames:
        assert f["H"] == pytest.approx(entropy(softmax([f["c"] * v for v in s1])), rel=1e-9)
    np.testing.assert_allclose(
        experiments.entropies_at(), [entropy(softmax([c * v for v in s1])) for c in (0.1, 1.0, 3.0)], rtol=1e-9
    )

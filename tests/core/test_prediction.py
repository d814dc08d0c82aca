"""The model's prediction and each head's share of it (core/heads/prediction.py), recomputed here from
the shipped weights (np.load of the .npz, the tests' own forward in demo_forward.py, head by head): the top five
and their probabilities, and every part's share of the top token's logit, which sum to the logit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.heads.demo import induction_demo
from attn_tui.core.heads.prediction import attribution, predict, source_readout, top_k
from tests.core.demo_forward import REPEAT, own_forward

SUM_TOL = 1e-9  # the bound on |Σ parts − logit| in float64 (rounding is ~1e-14 here)


@pytest.mark.parametrize("t", [3, 10, 14])
def test_the_demos_prediction_and_every_heads_share_recomputed(t):
    logits, direct, writes, W_U = own_forward(REPEAT)
    p = np.exp(logits[t] - logits[t].max())
    p /= p.sum()
    want_top = np.argsort(-p, kind="stable")[:5]
    got = predict(source_readout(induction_demo(REPEAT)), t)
    assert [tok for tok, _ in got.top] == [chr(ord("a") + i) for i in want_top]
    np.testing.assert_allclose([q for _, q in got.top], p[want_top], rtol=1e-12, atol=1e-15)
    tok = int(want_top[0])
    assert got.token == tok
    assert got.logit == pytest.approx(logits[t, tok], abs=1e-12 * abs(logits[t]).max())
    shares = {(ly, h): float(o[t] @ W_U[:, tok]) for (ly, h), o in writes.items()}
    for part in got.heads:
        assert part.logit == pytest.approx(shares[part.layer, part.head], abs=1e-12)
    assert got.direct == pytest.approx(float(direct[t] @ W_U[:, tok]), abs=1e-12)
    assert len(got.heads) == len(writes)
    assert abs(sum(x.logit for x in got.parts) - logits[t, tok]) < SUM_TOL
    assert [x.logit for x in got.parts] == sorted((x.logit for x in got.parts), reverse=True)


def test_the_induction_head_puts_the_repeat_there():
    """After t11 'e' (its earlier copy at t3, followed by 'r') the model predicts 'r', an induction head first."""
    got = predict(source_readout(induction_demo(REPEAT)), 10)
    assert got.top[0][0] == "r" and got.top[0][1] > 0.9
    assert got.parts[0].is_head and got.parts[0].layer == 1


def test_with_a_final_norm_the_parts_sum_to_the_normed_logit():
    """LN(x) = (x − mean x)/σ · w: with 1/σ held, centred parts sum to the logit (random parts, float64)."""
    rng = np.random.default_rng(7)
    d = 48
    direct, heads = rng.normal(size=d), rng.normal(size=(2, 4, d))
    w, u = rng.normal(size=d), rng.normal(size=d)
    x = direct + heads.sum(axis=(0, 1))
    inv_sigma = 1 / math.sqrt(x.var() + 1e-5)
    logit = float(((x - x.mean()) * inv_sigma * w) @ u)
    parts = attribution(direct, heads, u, inv_sigma, w)
    assert abs(sum(p.logit for p in parts) - logit) < SUM_TOL
    head = next(p for p in parts if p.layer == 1 and p.head == 3)
    o = heads[1, 3]
    assert head.logit == pytest.approx(float(((o - o.mean()) * inv_sigma * w) @ u), abs=1e-12)


def test_without_a_norm_a_share_is_the_plain_dot_product():
    parts = attribution(np.array([1.0, 0.0]), np.array([[[0.0, 2.0], [3.0, 1.0]]]), np.array([1.0, -1.0]))
    assert [(p.layer, p.head, p.logit) for p in parts] == [(0, 1, 2.0), (None, None, 1.0), (0, 0, -2.0)]


def test_top_k_is_the_stable_softmax_even_for_huge_logits():
    top = top_k(np.array([1000.0, 1001.0, -np.inf]), 3, "abc")
    assert [t for t, _ in top] == ["b", "a", "c"]
    assert top[0][1] == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-15)
    assert top[2][1] == 0.0

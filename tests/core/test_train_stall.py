"""Issue 30, item 2: what the unscaled stall looks like, measured. At d_k = 64 the rows that end
wrong are spread (not one-hot); at d_k = 256 most are one-hot. The verdict and the tour say so."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.info import row_entropies_bits
from attn_tui.core.train import compare
from attn_tui.core.train.run import Config, Trainer


def trained(d_k: int) -> Trainer:
    t = Trainer(Config(d_k=d_k, scaled=False, steps=compare.COMPARE_STEPS))
    while not t.done:
        t.step()
    return t


@pytest.fixture(scope="module")
def runs():
    return {d: trained(d) for d in compare.STALL_DKS}


def test_the_wrong_rows_figures_are_what_the_rows_show(runs):
    for t in runs.values():
        A, target = t._eval_A(), t.eval_set[2]
        wrong = np.argmax(A, axis=-1) != target
        rows = A[wrong]
        got = t.stuck()
        assert got["wrong_rows_median_H_bits"] == pytest.approx(float(np.median(row_entropies_bits(rows))))
        assert got["wrong_rows_median_max_weight"] == pytest.approx(float(np.median(rows.max(axis=-1))))
        assert got["wrong_rows_one_hot_share"] == pytest.approx(float(np.mean(rows.max(axis=-1) > 0.99)))
    lo, hi = runs[64].stuck(), runs[256].stuck()
    assert lo["wrong_rows_median_H_bits"] > 1.5 and lo["wrong_rows_median_max_weight"] < 0.5  # spread
    assert lo["wrong_rows_one_hot_share"] < 0.1 and hi["wrong_rows_one_hot_share"] > 0.7  # one-hot at 256


def test_the_verdict_says_spread_at_64_and_one_hot_at_256(runs):
    s = compare.run(Config(d_k=64, steps=compare.COMPARE_STEPS))
    u64, u256 = runs[64].summary(), runs[256].summary()
    v64 = compare.verdict(64, s, u64)
    assert "not one-hot" in v64 and f"median H {u64['wrong_rows_median_H_bits']:.2f} bits" in v64
    assert f"median largest weight {u64['wrong_rows_median_max_weight']:.2f}" in v64
    v256 = compare.verdict(256, s, u256)
    assert f"{u256['wrong_rows_one_hot_share']:.0%} of those rows put more than 0.99 on one wrong key" in v256
    assert "not one-hot" not in v256


@pytest.mark.slow
def test_the_tour_asks_then_quotes_the_measured_stall_and_says_w_v_is_fixed(runs):
    from attn_tui.tui.tour_questions import QUESTIONS, STALL_CHOICES
    from attn_tui.tui.views import train_view

    compare._MEASURED.clear()
    assert "(measuring the unscaled runs at d_k = 64 and 256" in train_view.stall_paragraph()
    page = train_view.tour_page()
    assert "W_V is fixed to the identity" in page and "W_Q, W_K, W_V are learned" not in page
    assert "median H" not in page and "wrong rows put more" not in page  # the question's answer: after a prediction
    (q,) = QUESTIONS["train"]
    lo, hi = runs[64].stuck(), runs[256].stuck()
    assert q.answer() == 2.0 and STALL_CHOICES[1].startswith("spread")  # measured: spread at d_k = 64
    assert lo["wrong_rows_one_hot_share"] < 0.5
    for d in compare.STALL_DKS:
        compare.unscaled_stall(d)
    reveal = q.reveal()
    assert f"median H {lo['wrong_rows_median_H_bits']:.2f} bits" in reveal
    assert f"median largest weight {lo['wrong_rows_median_max_weight']:.2f}" in reveal
    assert f"{hi['wrong_rows_one_hot_share']:.0%} of its {hi['wrong_rows']} wrong rows" in reveal
    assert "the right key's p → 0 (the p → 0 end of p(1−p))" in reveal


def test_the_save_key_says_w_v_is_fixed():
    from attn_tui.tui.keys import KEYS

    save = next(k for k in KEYS if k.scope == "train" and k.action == "explore")
    assert "fixed W_V = I" in save.help and "learned W_Q, W_K, W_V" not in save.help

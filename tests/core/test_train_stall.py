"""Issue 30, item 2: what the unscaled stall looks like, measured. At d_k = 64 the rows that end
wrong are spread (not one-hot); at d_k = 256 most are one-hot. The verdict says so (the tour and
the save key: tests/tui/test_train_stall_text.py)."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.info import row_entropies_bits
from attn_tui.core.train import compare
from attn_tui.core.train.run import Config


def test_the_wrong_rows_figures_are_what_the_rows_show(stall_runs):
    for t in stall_runs.values():
        A, target = t._eval_A(), t.eval_set[2]
        wrong = np.argmax(A, axis=-1) != target
        rows = A[wrong]
        got = t.stuck()
        assert got["wrong_rows_median_H_bits"] == pytest.approx(float(np.median(row_entropies_bits(rows))))
        assert got["wrong_rows_median_max_weight"] == pytest.approx(float(np.median(rows.max(axis=-1))))
        assert got["wrong_rows_one_hot_share"] == pytest.approx(float(np.mean(rows.max(axis=-1) > 0.99)))
    lo, hi = stall_runs[64].stuck(), stall_runs[256].stuck()
    assert lo["wrong_rows_median_H_bits"] > 1.5 and lo["wrong_rows_median_max_weight"] < 0.5  # spread
    assert lo["wrong_rows_one_hot_share"] < 0.1 and hi["wrong_rows_one_hot_share"] > 0.7  # one-hot at 256


def test_the_verdict_says_spread_at_64_and_one_hot_at_256(stall_runs):
    s = compare.run(Config(d_k=64, steps=compare.COMPARE_STEPS))
    u64, u256 = stall_runs[64].summary(), stall_runs[256].summary()
    v64 = compare.verdict(64, s, u64)
    assert "not one-hot" in v64 and f"median H {u64['wrong_rows_median_H_bits']:.2f} bits" in v64
    assert f"median largest weight {u64['wrong_rows_median_max_weight']:.2f}" in v64
    v256 = compare.verdict(256, s, u256)
    assert f"{u256['wrong_rows_one_hot_share']:.0%} of those rows put more than 0.99 on one wrong key" in v256
    assert "not one-hot" not in v256

"""Issue 30, item 2, in the app: the tour asks about the unscaled stall, then quotes what was
measured (the runs: tests/core/test_train_stall.py); the save key's help says W_V is fixed."""

from __future__ import annotations

import pytest

from attn_tui.core.train import compare
from attn_tui.tui.keys import KEYS
from attn_tui.tui.tour_questions import QUESTIONS, STALL_CHOICES
from attn_tui.tui.views import train_view


@pytest.mark.long
@pytest.mark.slow
def test_the_tour_asks_then_quotes_the_measured_stall_and_says_w_v_is_fixed(stall_runs):
    compare._MEASURED.clear()
    assert "(measuring the unscaled runs at d_k = 64 and 256" in train_view.stall_paragraph()
    page = train_view.tour_page()
    assert "W_V is fixed to the identity" in page and "W_Q, W_K, W_V are learned" not in page
    assert "median H" not in page and "wrong rows put more" not in page  # the question's answer: after a prediction
    (q,) = QUESTIONS["train"]
    lo, hi = stall_runs[64].stuck(), stall_runs[256].stuck()
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
    save = next(k for k in KEYS if k.scope == "train" and k.action == "explore")
    assert "fixed W_V = I" in save.help and "learned W_Q, W_K, W_V" not in save.help

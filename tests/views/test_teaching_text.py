"""Every number a teaching text quotes is the core's number (issue 16).

Each test computes the number from attn_tui.core on its own and looks for it in the
text; the lesson's printed values are checked too, so a drift in either fails. The
last tests swap the lesson's scenario under the texts and see the quotes follow.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from attn_tui.core import lenses
from attn_tui.core.builtins import builtin
from attn_tui.core.info import entropy_bits, row_entropies_bits
from attn_tui.tui.views import help_text, teaching

NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]\d+)?")


def numbers(text: str) -> list[str]:
    """Every number written in ``text`` ("0.73", "3", "1e-9"), in order."""
    return NUM.findall(text)


def hand_trace():
    return builtin("lesson-handcrafted").run()


def pipe_trace():
    return builtin("lesson-pipeline").run()


# -- exercise 1: removing the scale at d_k = 4 only doubles the scores ---------------------
def test_exercise1_answer_quotes_the_core_entropies_with_and_without_the_scale():
    s = builtin("lesson-handcrafted")
    scaled = row_entropies_bits(s.run().A)
    raw = row_entropies_bits(s.with_(scaled=False).run().A)
    chart = help_text.chart()
    want = "/".join(f"{h:.2f}" for h in scaled) + " → " + "/".join(f"{h:.2f}" for h in raw)
    assert want in chart
    assert "0.00/0.84/1.41/1.87/2.28 → 0.00/0.53/0.96/1.51/2.19" in chart  # the reading
    assert raw[-1] > 0.9 * np.log2(5)  # row 5 keeps most of its log2 5 bits: no saturation at d_k = 4
    assert "×2" in chart and s.d_k == 4 and np.sqrt(s.d_k) == 2
    assert "as in the lesson's d_k = 512 row" in chart
    assert "rows saturate" not in chart


def test_saturation_follows_the_size_of_the_scores_said_with_the_pipelines_rows():
    """Issue 30, 1: d_k sets the scores' size only for unit-variance q, k; the pipeline saturates at d_k = 4."""
    chart = help_text.chart()
    tr = builtin("lesson-pipeline").with_(scaled=False).run()
    assert "Saturation follows the size of the scores; d_k sets that size only for q, k with zero-mean" in chart
    assert np.allclose([tr.H[1], tr.H[3]], [0.025, 0.075], atol=5e-4)  # the measurement
    p1p = max(float(np.max(tr.A[t] * (1 - tr.A[t]))) for t in (1, 2, 3))
    assert p1p < 0.0074 and tr.H[4] > 0.1  # row 5 ties two keys: not saturated
    want = f"rows 2–4 reach H = {tr.H[1]:.3f}–{tr.H[3]:.3f} bits, max p(1−p) ≤ {p1p:.4f}"
    assert want in chart and "at d_k = 4 saturate unscaled" in chart
    assert "the chart shows only the heaviest keys" in chart and "it shows the heaviest" not in chart


def test_the_u_key_says_saturation_follows_the_scores_not_d_k_alone():
    from attn_tui.tui.keys import KEYS

    u = next(k for k in KEYS if k.key == "u")
    assert "saturated rows" not in u.help and "√d_k times larger" in u.help
    assert "saturated only when d_k is large" not in u.help
    assert "zero-mean unit-variance q, k" in u.help and "opening pipeline" in u.help


def test_a_tie_keeps_log2_k_bits_as_c_grows():
    """'H → 0' is not always: the pipeline's row 5 ties mat and it and goes to 1 bit."""
    t, names, bits = help_text.tie_row()
    tr = pipe_trace()
    assert t == 4 and names == ["t1 mat", "t4 it"] and bits == 1.0
    row = tr.S[t][~tr.blocked[t]]
    assert entropy_bits(np.exp(50 * (row - row.max())) / np.exp(50 * (row - row.max())).sum()) == pytest.approx(1.0)
    assert "row 5 ties 't1 mat' and 't4 it' and goes to 1 bit" in help_text.chart()


# -- the pages that quote the lesson's matrices ---------------------------------------------
def test_reading_the_hand_crafted_a_quotes_the_core_entry_by_entry():
    A = hand_trace().A
    W = lenses.prefix_average(5)
    text = teaching.read_a()
    for want in (
        f"Row 2 puts {A[1, 0]:.2f} on t1",
        f"against {W[1, 0]:g} under uniform",
        f"Row 3 puts {A[2, 1]:.2f} on t2",
        f"Row 4 puts {A[3, 0]:.2f} on t1",
        f"the {W[3, 0]:g} that Lesson 07's 1/4",
        f"earns it {A[3, 3]:.2f}",
        f"ties t1, t2 and t4 at {A[4, 0]:.2f} each",
    ):
        assert want in text
    # the lesson's own figures, so the core and the lesson agree too
    assert [f"{x:.2f}" for x in (A[1, 0], A[2, 1], A[3, 0], A[3, 3], A[4, 0])] == [
        "0.73",
        "0.58",
        "0.43",
        "0.26",
        "0.24",
    ]
    assert A[4, 0] == pytest.approx(A[4, 1], abs=1e-15) == pytest.approx(A[4, 3], abs=1e-15)
    assert set(numbers(text)) <= {
        "0.73",
        "0.5",
        "0.58",
        "0.43",
        "0.25",
        "0.26",
        "0.24",
        "1",
        "2",
        "3",
        "4",
        "5",
        "07",
        "0",
    }


def test_scores_page_separates_q_dot_k_from_the_scaled_score():
    tr = pipe_trace()
    text = teaching.scores()
    qk, s = float(tr.Q[3] @ tr.K[0]), float(tr.S[3, 0])
    assert (qk, s) == (6.0, 3.0)
    assert f"q·k = 2·3 = {qk:g}" in text and f"that is the score {s:g}" in text
    assert "2·3/√4 = 3" not in text


def test_output_page_quotes_a41_the_slivers_and_the_72_parameters():
    s, tr = builtin("lesson-pipeline"), pipe_trace()
    text = teaching.output()
    assert f"= {tr.A[3, 0]:.3f}" in text and f"{tr.A[3, 0]:.3f}" == "0.870"
    assert np.exp(3) / (np.exp(3) + 3) == pytest.approx(tr.A[3, 0])
    assert f"slivers of {tr.A[3, 1]:.3f}" in text
    n = lenses.param_count(s.d_model, s.d_k, s.d_v)
    assert n == 72 == 3 * s.d_model * s.d_k and s.W_Q.size == s.W_K.size == s.W_V.size == 24
    assert "W_Q, W_K and W_V together, are 3·d_model·d_k = 3·6·4 = 72 (24 each)" in text
    assert "max|O_1 − V_1| = 0" in text and lenses.max_abs_diff(tr.O[0], tr.V[0]) == 0


def test_mask_and_softmax_pages_compute_what_they_claim():
    from attn_tui.core.attention import fill_value, softmax

    text = teaching.mask()
    assert softmax(np.array([0.0, -1e9]))[1] == 0.0
    assert "underflows to exactly 0" in text
    assert np.isneginf(fill_value("-1e9", np.float16)) and "overflow float16 (it becomes −∞)" in text
    assert "For a causal mask that is a convenience, not a necessity" in text
    A = hand_trace().A
    assert "largest upper-triangle entry" not in text  # the question of the page: answered after a prediction
    from attn_tui.tui.views import tour_passages

    assert "largest upper-triangle entry is 0" in tour_passages.mask_reveal() and A[np.triu_indices(5, 1)].max() == 0
    soft = teaching.softmax_page()
    assert "S̃ = S + M" in soft and np.allclose(A.sum(axis=1), 1) and A[0, 0] == 1
    assert "every row sums to 1" in soft and "A(1,1) = 1" in soft


def test_scale_page_states_the_assumption_and_points_to_the_measurements():
    text = teaching.scale()
    assert "i.i.d. components with mean 0 and variance 1" in text
    assert "roughly unit variance regardless of dimension" in text
    assert "experiments screen (x)" in text and "d_k = 4, 64, 512" in text
    assert "press ↓" in text


def test_exercise3_counts_the_cross_attention_scores():
    s = builtin("cross-attention")
    tr = s.run()
    assert tr.S.size == 15 and tr.S.shape == (s.T, s.T_k) == (5, 3)
    assert "5×3" not in teaching.ex3()  # the shapes are the exercise's answer: after a prediction
    from attn_tui.tui.views import reveals

    assert "S and A 5×3 (15 entries)" in reveals.ex3_shapes_reveal()


# -- the texts are computed when drawn, not typed in ----------------------------------------
def test_quotes_follow_the_core_when_the_lesson_scenario_changes(monkeypatch):
    """Swap the hand-crafted Q for 3·Q: every quote of A and H moves with it."""
    real = builtin

    def swapped(name):
        s = real(name)
        return s.with_(Q=3 * s.Q) if name == "lesson-handcrafted" else s

    monkeypatch.setattr(teaching, "builtin", swapped)
    A = swapped("lesson-handcrafted").run().A
    text = teaching.read_a()
    assert f"Row 2 puts {A[1, 0]:.2f} on t1" in text and f"{A[1, 0]:.2f}" != "0.73"
    H = row_entropies_bits(A)
    assert "/".join(f"{h:.2f}" for h in H) in help_text.chart()


def test_the_help_says_an_entry_of_s_is_c_times_the_dot_product_over_sqrt_dk():
    """The S pane's help described entry (t, i) as q_t·k_i divided by √d_k, leaving out c, while its own
    title (and the grid) are c·QKᵀ/√d_k; checked against the core at c = 2."""
    import numpy as np

    from attn_tui.core import builtin
    from attn_tui.tui.screens.help import help_markdown
    from attn_tui.tui.views.grids import PANE_HELP

    text = PANE_HELP["S"]
    assert text in help_markdown()
    entry = text[text.index("entry (t, i)") :].split("—")[0]
    assert entry.strip() == "entry (t, i) is c times the dot product q_t·k_i", entry
    assert "divided by √d_k" in text and "u removes √d_k (S = c·QKᵀ)" in text
    s = builtin("lesson-pipeline").with_(c=2.0)
    tr = s.run()
    assert np.isclose(tr.S[3, 0], 2.0 * tr.Q[3] @ tr.K[0] / np.sqrt(s.d_k))  # what the sentence says
    raw = s.with_(scaled=False).run()
    assert np.isclose(raw.S[3, 0], 2.0 * raw.Q[3] @ raw.K[0])

"""The tour's questions, page by page: predict first, then the page reveals.

Every answer is a function of the core (the lesson's built-ins run now); every reveal is a
view in views/reveals.py or views/teaching.py. A page's questions are asked in order: the
next is posed only once the one before has a prediction or a skip.
"""

from __future__ import annotations

import numpy as np

from ..core import lenses
from ..core.builtins import builtin
from ..core.train import compare
from .quiz import Question
from .views import reveals, teaching, tour_passages, train_view

STALL_CHOICES = (
    "one-hot: more than 0.99 on one wrong key",
    "spread: the weight shared among several wrong keys, the right key's p ≈ 0",
)


def _stall_shape() -> float:
    """1 (one-hot) or 2 (spread): what most wrong rows of the unscaled d_k = 64 run look like, measured."""
    u = compare.unscaled_stall(compare.STALL_DKS[0])
    return 1.0 if (u["wrong_rows_one_hot_share"] or 0.0) >= 0.5 else 2.0


def _pipe_keys() -> tuple:
    return builtin("lesson-pipeline").keys


def _hand_doubled_choice() -> float:
    before, after = teaching.hand()[1].H[3], builtin("exercise1-doubled").run().H[3]
    return 1.0 if after > before + 1e-9 else 2.0 if after < before - 1e-9 else 3.0


def _rank_S() -> float:
    tr = teaching.pipe()[1]
    return float(lenses.rank_info(tr.S, tr.Q, tr.K)["S"])


QUESTIONS: dict[str, tuple[Question, ...]] = {
    "qkv": (
        Question(
            "In the pipeline 'mat was soft, it was', which key will query 4 ('it') put the most weight on?",
            lambda: float(np.argmax(teaching.pipe()[1].A[3]) + 1),
            tour_passages.qkv_reveal,
            "o opens lesson-pipeline; p shows its grids; j/k move to row 4 and read its row of A",
            choices=_pipe_keys,
        ),
    ),
    "scores": (
        Question(
            lambda: (
                "What is the score S(4,1) = q_4·k_1/√d_k of query 4 ('it') against key 1 ('mat'), "
                f"from the Q and K beside (d_k = {teaching.pipe()[0].d_k})."
            ),
            lambda: float(teaching.pipe()[1].S[3, 0]),
            teaching.scores,
            "p shows S beside Q and K; ↑/↓ move the row",
            tol=0.1,
        ),
    ),
    "scale": (
        Question(
            lambda: (
                f"The pipeline's row 4 has H(A_4) = {teaching.f2(teaching.pipe()[1].H[3])} bits. "
                "Remove the 1/√d_k (u) at "
                f"d_k = {teaching.pipe()[0].d_k}: predict H(A_4) unscaled, in bits."
            ),
            lambda: float(reveals.unscaled("lesson-pipeline")[1].H[3]),
            reveals.scale_reveal,
            "u removes the scale: watch row 4 in the H pane",
            tol=0.1,
            unit=" bits",
        ),
    ),
    "mask": (
        Question(
            "With the causal mask on, what is the largest entry above the diagonal of the hand-crafted A?",
            lambda: float(max([0.0, *teaching.hand()[1].A[np.triu_indices(5, 1)]])),
            tour_passages.mask_reveal,
            "m toggles the mask: the check pane shows the largest entry above the diagonal now",
            tol=0.005,
        ),
    ),
    "softmax": (
        Question(
            "The pipeline's row 5 ('was' again) has two candidate subjects. Predict 2^H(A_5), the effective "
            "number of tokens it attends.",
            lambda: float(2 ** teaching.pipe()[1].H[4]),
            tour_passages.softmax_reveal,
            "o opens lesson-pipeline; j/k to row 5: the H pane gives H and 2^H",
            tol=0.25,
            unit=" tokens",
        ),
    ),
    "readA": (
        Question(
            "Row 4 of the hand-crafted A: how much weight will it put on t1 (Lesson 07's average gives 1/4)?",
            lambda: float(teaching.hand()[1].A[3, 0]),
            teaching.read_a,
            "y loads the hand-crafted Q, K on row 4",
            tol=0.05,
        ),
    ),
    "output": (
        Question(
            "Row 4 of O = A V: how much of mat's value (its noun feature, O(4, noun)) will 'it' carry?",
            lambda: float(teaching.pipe()[1].O[3, 0]),
            teaching.output,
            "o opens lesson-pipeline; p: the O grid beside A and V; j/k to row 4",
            tol=0.05,
        ),
    ),
    "rows": (
        Question(
            "Row 5 ('was' again) has two candidate subjects, 'mat' and 'it'. What weight will it put on 'mat'?",
            lambda: float(teaching.pipe()[1].A[4, 0]),
            tour_passages.rows_reveal,
            "o opens lesson-pipeline; p, then j/k to row 5 of A",
            tol=0.05,
        ),
    ),
    "rank": (
        Question(
            lambda: (
                f"The pipeline has T = {teaching.pipe()[0].T} tokens and d_k = {teaching.pipe()[0].d_k}. "
                "Predict rank S."
            ),
            _rank_S,
            reveals.rank_reveal,
            "l: the rank lens shows rank S, Q, K and σ(S) for the state now",
        ),
    ),
    "ex1": (
        Question(
            lambda: (
                f"Remove the 1/√d_k factor (u) on the hand-crafted Q, K (d_k = {teaching.hand()[0].d_k}). "
                "Scaled, row 4 "
                f"has H(A_4) = {teaching.f2(teaching.hand()[1].H[3])} bits. Predict H(A_4) unscaled, in bits."
            ),
            lambda: float(reveals.unscaled("lesson-handcrafted")[1].H[3]),
            reveals.ex1_reveal,
            "u: pin first (P), then u, and the entropy table shows ΔH for every row",
            tol=0.15,
            unit=" bits",
        ),
        Question(
            "Now double the diagonal of Q and K (built-in exercise1-doubled), scaled. Does H(A_4) rise, fall or stay?",
            _hand_doubled_choice,
            reveals.doubled_reveal,
            "o and pick exercise1-doubled, read against the pin",
            choices=("rises", "falls", "stays the same"),
        ),
    ),
    "ex2": (
        Question(
            "Disable the causal mask on the hand-crafted Q, K. What weight will row 1 (token 1) keep on its own key?",
            lambda: float(builtin("lesson-handcrafted").with_(mask="none").run().A[0, 0]),
            reveals.ex2_reveal,
            "m toggles the mask: row 1 of A",
            tol=0.05,
        ),
    ),
    "ex3": (
        Question(
            "Keys and values from Y (T′ rows), queries from X (T rows): which matrices change shape?",
            reveals.shapes_answer,
            reveals.ex3_shapes_reveal,
            "y loads the cross-attention scenario: every pane title gives its shape",
            choices=reveals.SHAPE_CHOICES,
        ),
        Question(
            "Does a causal mask still make sense in cross-attention?",
            lambda: 3.0,
            reveals.ex3_mask_reveal,
            "w picks the mask; c switches cross-attention on and off",
            choices=reveals.MASK_CHOICES,
        ),
    ),
    "ex4": (
        Question(
            "d_model = 384, d_k = d_v = 64: how many parameters do W_Q, W_K, W_V have together?",
            lambda: float(lenses.param_count(384, 64, 64)),
            reveals.ex4_reveal,
            "l: the cost lens counts the parameters",
        ),
        Question(
            "Add an output projection W_O (d_v × d_model). What's the total now?",
            lambda: float(lenses.param_count(384, 64, 64, with_output=True)),
            reveals.ex4_out_reveal,
            "l: the cost lens",
        ),
    ),
    "ex5": (
        Question(
            "Self-attention: T doubles. By what factor do the entries of S and the multiply-adds of QKᵀ grow?",
            lambda: float(lenses.score_cost(2, 1)["entries"] / lenses.score_cost(1, 1)["entries"]),
            reveals.ex5_reveal,
            "l: the cost lens tabulates S for T = 5 … 32768",
            unit="×",
        ),
    ),
    "train": (
        Question(
            lambda: (
                f"Unscaled at d_k = {compare.STALL_DKS[0]}, training stalls with rows still wrong after "
                f"{compare.COMPARE_STEPS} steps. What do those wrong rows look like at the end?"
            ),
            _stall_shape,
            train_view.stall_paragraph,
            "T, then c: the comparison's verdict for each d_k",
            choices=STALL_CHOICES,
        ),
    ),
}

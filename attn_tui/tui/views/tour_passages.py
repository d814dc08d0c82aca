"""The tour's pipeline pages split for predict-then-reveal, and the lesson's passages the tour
once left out: the other rows of the pipeline, 2^H, the adaptive filter, the Model paragraph,
the KV cache, the Key Takeaways.

Pure functions () -> str; the numbers come from the lesson's built-ins run through the core now
(tests/views/test_tour_questions.py). The intros hold no answer; the reveals are shown only
after a prediction or a skip.
"""

from __future__ import annotations

import numpy as np

from ...core import lenses
from .teaching import f2, g, hand, pipe

# Lessons 05 and 07 measured this on their toy corpus (the bits uniform averaging loses to the
# bigram); that corpus is not part of this app, so the number is quoted, attributed, not computed.
LESSON07_LOST_BITS = 0.5


def qkv_reveal() -> str:
    s, tr = pipe()
    t, i = 3, int(np.argmax(tr.A[3]))
    return (
        f"Query 4 ({s.tokens[t]!r}) puts {f2(tr.A[t, i])} on key {i + 1} ({s.keys[i]!r}). W_Q makes a pronoun "
        f"ask for 'a noun' (its query is {_vec(tr.Q[t])}); W_K makes a noun advertise 'noun' on the same "
        f"dimension ({s.keys[i]!r}: {_vec(tr.K[i])}) while the pronoun itself advertises 'pronoun' "
        f"({_vec(tr.K[t])}). What a token asks for and what it advertises differ: that is why W_Q and W_K are "
        "two maps."
    )


def _vec(v) -> str:
    return "[" + ", ".join(g(x) for x in v) + "]"


def scores_intro() -> str:
    return (
        "Entry (t, i) of S = QKᵀ is the dot product q_t·k_i — a raw similarity between query t and key i — "
        "divided by √d_k. Read it off Q and K: row t of Q against row i of K, feature by feature."
    )


def softmax_reveal() -> str:
    _, ha = hand()
    _, tr = pipe()
    eff, heff = 2**tr.H, 2**ha.H
    return (
        f"Row 5 of the pipeline attends 2^H = {f2(eff[4])} effective tokens (H = {f2(tr.H[4])} bits): the two "
        "candidate subjects plus a little leakage. Row 4 of the hand-crafted A attends "
        f"{f2(heff[3])} of the 4 available; the pipeline's row 4 attends {f2(eff[3])} — the lookup is nearly "
        "hard. Trained heads typically sit far below log₂t; these entropies are the measurement that says "
        "how far."
    )


def read_a_intro() -> str:
    return (
        "The lesson's first example: hand-crafted Q and K. Key 1 advertises feature 1 loudly; queries 2 and 4 "
        "look for feature 1; query 3 looks for feature 2, which key 2 advertises; query 5 wants a bit of both. "
        "The pane shows the Q and K; A comes after your prediction."
    )


def output_intro() -> str:
    return (
        "O = A V: each row of O mixes the value rows with its row's weights. In the pipeline V = X W_V hands "
        "over each token's first four features (noun, verb, adj, pron) unchanged."
    )


def rows_intro() -> str:
    return (
        "The pipeline's other rows have jobs too. W_Q makes a verb look for its subject (a noun or a pronoun) "
        "and an adjective look for the noun it describes; W_K makes a noun advertise 'noun' and a pronoun "
        "'pronoun'."
    )


def rows_reveal() -> str:
    s, tr = pipe()
    A, eff = tr.A, 2**tr.H
    return (
        f"Row 2's verb finds its subject ({f2(A[1, 0])} on mat), row 3's adjective does too ({f2(A[2, 0])}), "
        f"and row 5's second verb has two candidate subjects and splits {A[4, 0]:.3f} / {A[4, 3]:.3f} between "
        "mat and it — attention represents the ambiguity instead of guessing. In 2^H: rows 2, 3, 4, 5 attend "
        f"{', '.join(f2(x) for x in eff[1:])} effective tokens. Row 1 of O equals row 1 of V: "
        f"max|O_1 − V_1| = {g(lenses.max_abs_diff(tr.O[0], tr.V[0]))}."
    )


def rank_intro() -> str:
    return (
        "S = QKᵀ is a bilinear form, so rank S ≤ min(rank Q, rank K) ≤ d_k however long the sequence. The "
        "rank says how many independent questions the queries ask."
    )


def more_page() -> str:
    _, tr = pipe()
    return (
        "Adaptive filter (an analogy). Because the taps of the FIR filter are computed from the signal itself, "
        "attention behaves like an adaptive filter — but there is no error-driven tap update at inference "
        "time; the adaptation is instantaneous and feed-forward.\n\n"
        "Model. The floor H(X_{t+1} | X_{1..t}) from Lessons 05 and 07 is what any predictor must approach. "
        "Uniform averaging collapses the prefix into one bag and dilutes most of I(X_{t+1}; X_{1..t}); "
        "per-row re-weighting lets o_t stay informative about X_{t+1} for whichever prior token carries the "
        f"information — the {g(LESSON07_LOST_BITS)} bits the toy corpus of Lessons 05 and 07 lost to the bigram "
        "(their measurement, quoted) are recoverable by a head that puts its mass on the first token. The row "
        f"entropies (here {', '.join(f2(h) for h in tr.H)} bits for the pipeline) are the per-position "
        "measurement of how selective that routing is.\n\n"
        "The KV cache. Attention has no state of its own inside a single forward call. The stored keys and "
        "values only become a state when generation reuses them as the KV cache (Lesson 21): each new token "
        "computes one query and reads every cached key and value, so the cache grows by one row per token."
    )


def takeaways() -> str:
    s, _ = pipe()
    return (
        "• Queries, keys, values are three linear projections of the same input X — self-attention means they "
        "all come from the same sequence — and they differ because asking, advertising and handing over are "
        "different jobs.\n"
        "• The score matrix S = QKᵀ/√d_k is a bank of correlator outputs of rank ≤ d_k; the 1/√d_k scale keeps "
        "it at unit variance, which is what keeps the row entropy — and the gradient — alive.\n"
        "• The causal mask zeros out future positions so position t can only look at tokens 1..t; −10⁹ stands "
        "in for −∞ for fully-masked rows and dtype portability, not because exp(−∞) misbehaves.\n"
        "• Softmax is row-wise: each row of A is a distribution over the first t tokens, and O = A V is a "
        "Nadaraya–Watson kernel smoother whose box-kernel special case is Lesson 07's prefix average.\n"
        "• The parameter count of one self-attention block (W_Q, W_K, W_V) is 3·d_model·d_k when d_v = d_k "
        f"(in general d_model(2d_k + d_v); {lenses.param_count(s.d_model, s.d_k, s.d_v)} for the pipeline), "
        "independent of sequence length."
    )


def mask_reveal() -> str:
    s, tr = hand()
    upper = max([0.0, *tr.A[np.triu_indices(s.T, 1)]])
    return (
        f"With the mask on, A is lower-triangular: in the lesson's hand-crafted A the largest upper-triangle "
        f"entry is {g(upper)} — zero, as causality requires — and every row sums to 1. The check pane gives "
        "both for the state now: press m and watch them change."
    )

"""The tour's page texts, in the lesson's words, every quoted number computed by the core.

Each page text is a function () -> str, called when the page is drawn: the numbers
it quotes come from the lesson's built-in scenarios run through ``attn_tui.core``,
never typed in (tests/views/test_teaching_text.py compares each with the core).
"""

from __future__ import annotations

import numpy as np

from ...core import experiments, lenses
from ...core.attention import fill_value, softmax
from ...core.builtins import builtin
from ..state import C_STEP


def f2(x) -> str:
    """Two decimals, as the lesson's sentences quote (0.73, 0.24)."""
    return f"{float(x):.2f}"


def g(x) -> str:
    """A whole number without a point (6, 3, 72), others as they print (0.5)."""
    x = float(x)
    return str(int(x)) if x == int(x) else f"{x:g}"


def hand():
    """The lesson's hand-crafted Q, K (its first example) and its trace."""
    s = builtin("lesson-handcrafted")
    return s, s.run()


def pipe():
    """The lesson's full pipeline, "mat was soft, it was", and its trace."""
    s = builtin("lesson-pipeline")
    return s, s.run()


def objectives() -> str:
    return (
        "Attention keeps Lesson 07's skeleton — a mixing matrix along the token axis — but makes the "
        "taps learned and data-dependent:\n\n"
        "  Attn(Q, K, V) = softmax(QKᵀ/√d_k + M) V\n\n"
        "Lesson 07's mixing matrix W is called A from here on (rows = query time t, columns = key time "
        "i ≤ t), and W now denotes a learned projection such as W_Q.\n\n"
        "By the end you can:\n"
        "• define the query, key and value matrices Q, K, V derived from a sequence of embeddings via "
        "three learned linear projections, and say why they are three different projections;\n"
        "• write and explain the scaled dot-product attention equation Attn(Q, K, V) = "
        "softmax(QKᵀ/√d_k) V one piece at a time;\n"
        "• motivate the 1/√d_k scale from the variance of a dot product of independent vectors, and "
        "measure what it does to the entropy of an attention row;\n"
        "• apply a causal mask so position t cannot see tokens at positions > t and verify the "
        "resulting attention matrix is lower-triangular;\n"
        "• read attention as a correlation receiver, a kernel smoother and an associative memory, and "
        "read a hand-built attention matrix entry by entry."
    )


def qkv() -> str:
    return (
        "Three learned linear projections of the same X: Q = X W_Q, K = X W_K, V = X W_V. Each token "
        "emits a query (what it's looking for), a key (what it advertises) and a value (what it "
        "contributes if selected). They are separate projections because what a token asks for, what "
        "it advertises, and what it hands over are three different things — a pronoun asks for a noun, "
        'advertises "pronoun", and hands over whatever features the next layer needs.'
    )


def scores() -> str:
    s, tr = pipe()
    t, i = 3, 0  # query 4 ("it"), key 1 ("mat")
    q, k = tr.Q[t], tr.K[i]
    j = int(np.argmax(np.abs(q * k)))
    others = [float(tr.S[t, m]) for m in range(s.T_k) if m != i and not tr.blocked[t, m]]
    return (
        "Entry (t, i) of S = QKᵀ is the dot product q_t·k_i — a raw similarity between query t and "
        f"key i. In the pipeline, query {t + 1} ({s.tokens[t]!r}) meets key {i + 1} ({s.keys[i]!r}) with "
        f"q·k = {g(q[j])}·{g(k[j])} = {g(q @ k)}; divided by √d_k = √{s.d_k} that is the score "
        f"{g(tr.S[t, i])}, and every other key it may see scores {g(max(np.abs(others)))}. The S pane "
        "shows the app's S: c·QKᵀ/√d_k, or c·QKᵀ once u has removed the scale. Move the row with ↑/↓."
    )


def scale() -> str:
    dks = ", ".join(str(d) for d in experiments.DKS)
    return (
        "If q and k are independent of each other and each has d_k i.i.d. components with mean 0 and "
        "variance 1, then q·k = Σ_j q_j k_j has variance d_k and so standard deviation √d_k. As d_k "
        "grows, raw dot products grow too, softmax becomes razor-sharp (one entry approaches 1, others "
        "approach 0), and gradients vanish. Scaling by 1/√d_k keeps the input to softmax at roughly unit "
        "variance regardless of dimension.\n\n"
        f"The scale is an entropy knob: + and - multiply and divide c by {C_STEP}; watch H(A_t) fall and "
        "rise. 0 resets c to 1, u removes the 1/√d_k. Row 1 sees only itself, so its H is 0 = log₂1 "
        "at every c: on row 1, press ↓ to pick a later row first.\n\n"
        f"The measurements are on the experiments screen (x): Var(q·k)/d_k ≈ 1 at d_k = {dks}, and one "
        f"row at d_k = {experiments.DKS[-1]} unscaled and scaled."
    )


def mask() -> str:
    under = softmax(np.array([0.0, -1e9]))[1]
    f16 = fill_value("-1e9", np.float16)
    return (
        "Token t must not see tokens at positions i > t: M is 0 where i ≤ t and −∞ where i > t. In code "
        "the mask is a large finite negative number (−10⁹) rather than literal −∞. For a causal mask "
        "that is a convenience, not a necessity: every row keeps its diagonal, so the row maximum that "
        "a numerically stable softmax subtracts is finite, −∞ − max is still −∞, and exp(−∞) = 0 "
        f"exactly; exp(−10⁹ − max) underflows to exactly {g(under)} too.\n\n"
        "The genuine failure case is a row that is masked entirely — padding positions in batched "
        "training — where −∞ − (−∞) = NaN. The other honest reason is portability: frameworks add the "
        'mask in the tensor\'s own dtype, and a finite "very negative" constant chosen per dtype works '
        "for float and integer masks alike — −10⁹ would itself overflow float16 (it becomes "
        f"{'−∞' if np.isneginf(f16) else g(f16)}).\n\n"
        "m toggles the mask. Predict first what it leaves above A's diagonal, then verify it in the check pane."
    )


def softmax_page() -> str:
    _, tr = hand()
    sums = tr.A.sum(axis=1)
    same = "every row sums to " + g(round(float(sums[0]), 12)) if np.allclose(sums, sums[0]) else "rows sum to 1"
    return (
        "Applying softmax to each row of S̃ = S + M (the scores with the mask added) turns the scores "
        "into a probability distribution: A(t,i) = exp(S̃(t,i)) / Σ_j exp(S̃(t,j)). The −10⁹ entries "
        f"become exactly 0, so row t of A is a distribution over the first t tokens: {same}; token 1 "
        f"can only attend to itself, so A(1,1) = {g(tr.A[0, 0])}.\n\n"
        "The row entropy H(A_t) = −Σ_i A_t,i log₂ A_t,i in bits measures how spread row t is, and 2^H "
        "is the effective number of tokens attended. Lesson 07's uniform row has H = log₂t, the "
        "maximum; a hard lookup has H = 0."
    )


def read_a() -> str:
    s, tr = hand()
    A, W = tr.A, lenses.prefix_average(s.T)
    back = 3 - 0  # row 4 reads t1
    return (
        "Key 1 advertises feature 1 loudly; queries 2 and 4 look for feature 1; query 3 looks for "
        "feature 2, which key 2 advertises; query 5 wants a bit of both. Now read the design back:\n\n"
        f"• Row 2 puts {f2(A[1, 0])} on t1 (query 2 asked for feature 1; key 1 has it) against "
        f"{g(W[1, 0])} under uniform averaging.\n"
        f"• Row 3 puts {f2(A[2, 1])} on t2, the key advertising feature 2.\n"
        f"• Row 4 puts {f2(A[3, 0])} on t1 — a token {back} positions back, retrieved by content, against "
        f"the {g(W[3, 0])} that Lesson 07's 1/4 would give; its own half-strength key earns it "
        f"{f2(A[3, 3])}.\n"
        f"• Row 5's half-and-half query ties t1, t2 and t4 at {f2(A[4, 0])} each.\n\n"
        f"Token 1 can only attend to itself, so A(1,1) = {g(A[0, 0])}; every row sums to 1; the largest "
        f"entry in the upper triangle is {g(max([0.0, *A[np.triu_indices(s.T, 1)]]))} — zero, as "
        "causality requires."
    )


def output() -> str:
    s, tr = pipe()
    t = 3
    a, o = tr.A[t], tr.O[t]
    slivers = sorted({f"{x:.3f}" for x in a[1 : t + 1]})
    e3 = float(tr.S[t, 0])
    rest = int((~tr.blocked[t]).sum()) - 1  # the other keys it sees, each e^0 = 1
    return (
        "O = A V: each row of O mixes the value rows with the row's weights. Query 4 ('it') scores "
        f"{g(e3)} on 'mat' and {g(np.max(np.abs(tr.S[t, 1 : t + 1])))} on the {rest} others it sees, so "
        f"A(4,1) = e^{g(e3)}/(e^{g(e3)} + {rest}) = "
        f"{a[0]:.3f}: token 4 retrieves token 1, {t} positions back, against the "
        f"{g(lenses.prefix_average(s.T)[t, 0])} uniform averaging would give. Row 4 of O is "
        f"{f2(o[0])} of mat's value plus {t} slivers of {'/'.join(slivers)}: the 'it' row now carries "
        "the noun's content — content-based retrieval, the thing Lesson 07 could not do.\n\n"
        "Row 1 of O equals row 1 of V (token 1 attends only to itself): max|O_1 − V_1| = "
        f"{g(lenses.max_abs_diff(tr.O[0], tr.V[0]))}. The block's learnable parameters, W_Q, W_K and "
        f"W_V together, are 3·d_model·d_k = 3·{s.d_model}·{s.d_k} = "
        f"{lenses.param_count(s.d_model, s.d_k, s.d_v)} ({s.d_model * s.d_k} each) — a count that does "
        "not depend on the sequence length T."
    )


def receiver() -> str:
    return (
        "Correlation receiver. s_t,i = q_t·k_i correlates one template (the query) against every "
        "stored waveform (the keys) — the matched-filter operation of Lesson 04 (embeddings and "
        "similarity), applied t times per row. Softmax is a soft-argmax detector on the correlator "
        "outputs: the peak gets the most weight, e^margin times the runner-up's. And 1/√d_k normalises "
        "the noise floor: for independent zero-mean unit-variance components the correlator output has "
        "variance d_k, so the scale returns it to "
        "unit variance whatever the dimension.\n\n"
        "The pane reads the selected row that way: q_t·k_i for every key, the peak and its margin over "
        "the runner-up. Move the row with ↑/↓; the lenses screen (l) has it too."
    )


def lenses_page() -> str:
    return (
        "Kernel smoother. Row t of O is a Nadaraya–Watson estimate, o_t = Σ_i κ(q_t, k_i) v_i / "
        "Σ_i κ(q_t, k_i) over i ≤ t, with κ(q, k) = exp(q·k/√d_k) (c = 1; the app's c multiplies the "
        "exponent). Softmax's normalisation is the smoother's denominator. Lesson 07 is the special "
        "case κ ≡ 1 — a box kernel: set W_Q = W_K = 0 and A collapses to W_avg exactly. Two lessons, "
        "one formula.\n\n"
        "Associative memory. Keys are addresses, values are contents, the query is a probe, and the "
        "read-out is a convex combination of contents weighted by address match.\n\n"
        "The lenses screen (l) has the correlation receiver, both of these and the box-kernel switch "
        "(z), live for the selected row, with rank, gradient and cost."
    )


def ex1() -> str:
    s, _ = hand()
    return (
        f"Remove the 1/√d_k factor (u). How do the row entropies change when d_k = {s.d_k}? Try "
        "doubling the diagonal of Q and K to make the dot products larger — what does softmax do to "
        "H(A_t) as the scores grow?\n\n"
        "y loads the hand-crafted Q, K on row 4 and pins them (P): press u and the entropy table shows "
        "H pinned, H now and ΔH for every row, A shows ΔA, and the charts mark the pinned row with ┃. "
        "u puts the scale back; P unpins. Then press o and pick the built-in exercise1-doubled: the "
        "same Q, K with their diagonal doubled, read against the same pin."
    )


def ex2() -> str:
    return (
        "Disable the causal mask. Confirm that token 1 now attends to future tokens. Why does this "
        "break language-model training?\n\n"
        "y pins the hand-crafted Q, K with the causal mask, then drops the mask: A shows ΔA against the pin. "
        "m puts the mask back."
    )


def ex3() -> str:
    s = builtin("cross-attention")
    return (
        "Let the keys and values come from a different sequence Y (T′×d_model) — cross-attention — while "
        "queries still come from X. Which shapes change in the pipeline diagram? Does a causal mask still "
        f"make sense, and when?\n\nThe built-in cross-attention scenario has T = {s.T} queries and "
        f"T′ = {s.T_k} keys; the equation pane shows the shapes of the scenario loaded now."
    )


def ex4() -> str:
    return (
        "For d_model = 384, d_k = d_v = 64, compute the parameter count of W_Q, W_K, W_V together: "
        "d_model(2d_k + d_v), which is 3·d_model·d_k when d_v = d_k. Add an output projection W_O "
        "(d_v × d_model) — what's the total now? The count does not depend on the sequence length T."
    )


def ex5() -> str:
    return (
        "The score matrix S = QKᵀ has T × T entries (T × T′ in cross-attention). How does the cost of "
        "computing S scale with sequence length T? Why is this the bottleneck that motivates efficient "
        "attention variants (FlashAttention, sliding window, linear attention)?"
    )

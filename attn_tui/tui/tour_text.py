"""The tour's pages: the lesson's objectives, its sections in order, its exercises.

Each page has a short text in the lesson's words, the live panes shown beside it
(names the tour screen knows how to draw from the state) and, for an exercise, a
"try it" that sets up the scenario and screen the exercise needs. Pure data.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TryIt:
    """What "try it" does: load a built-in (or keep the scenario), change settings, go to a screen."""

    label: str
    builtin: str | None = None  # a built-in scenario name, or None to keep the current one
    changes: tuple = ()  # (key, value) pairs for Scenario.with_
    row: int | None = None  # the query row to select (0-based)
    mode: str = "pipeline"  # the screen to show afterwards


@dataclass(frozen=True)
class Page:
    key: str
    title: str
    text: str
    panes: tuple  # names of live panes: grids "X", "Q", …, "chart", "nw", "memory", "cost", "formula"
    try_it: TryIt | None = None


OBJECTIVES = """\
Attention keeps Lesson 07's skeleton — a mixing matrix along the token axis — but makes the taps \
learned and data-dependent:

  Attn(Q, K, V) = softmax(QKᵀ/√d_k + M) V

By the end you can:
• define Q, K, V as three learned projections of X, and say why there are three;
• read the equation one piece at a time;
• motivate 1/√d_k from the variance of a dot product, and measure what it does to a row's entropy;
• apply a causal mask so position t cannot see positions > t;
• read attention as a correlation receiver, a kernel smoother and an associative memory."""

PAGES: tuple[Page, ...] = (
    Page("objectives", "Learning objectives", OBJECTIVES, ("formula",)),
    Page("qkv", "Queries, keys, values",
         "Three learned linear projections of the same X: Q = X W_Q, K = X W_K, V = X W_V. "
         "Each token emits a query (what it is looking for), a key (what it advertises) and a value "
         "(what it contributes if selected). A pronoun asks for a noun, advertises \"pronoun\", and "
         "hands over whatever features the next layer needs — three different jobs, three maps.",
         ("X", "Q", "K", "V")),
    Page("scores", "The score matrix S",
         "Entry (t, i) of S = QKᵀ is the dot product q_t·k_i: a raw similarity between query t and "
         "key i. A large score means key i advertises what query t seeks. Query 4 (\"it\") meets key 1 "
         "(\"mat\") with 2·3/√4 = 3 and every other visible key with 0. Move the row with ↑/↓.",
         ("Q", "K", "S")),
    Page("scale", "Why divide by √d_k",
         "For independent q, k with d_k unit-variance components, q·k has variance d_k. As d_k grows, "
         "raw dot products grow, softmax becomes razor-sharp and gradients vanish. Scaling by 1/√d_k "
         "keeps the scores at unit variance whatever the dimension. The scale is an entropy knob: "
         "press + and - and watch H(A_t) fall and rise; 0 resets c to 1, u removes the scale.",
         ("chart", "H")),
    Page("mask", "The causal mask",
         "Token t must not see tokens at positions i > t: M is 0 on and below the diagonal and a large "
         "negative number (-1e9) above it. exp(-1e9) is 0, so the blocked cells of A are exactly 0. "
         "The genuine failure is a row masked entirely (padding), where -inf - (-inf) is NaN. "
         "m toggles the mask.",
         ("M", "A")),
    Page("softmax", "Row-wise softmax: attention weights",
         "Softmax turns each row of S + M into a probability distribution over the first t tokens: "
         "A(t,i) = exp(S̃(t,i)) / Σ_j exp(S̃(t,j)). Every row sums to 1; token 1 can only attend to "
         "itself, so A(1,1) = 1. The row entropy H(A_t) in bits says how spread the row is; 2^H is the "
         "effective number of tokens attended.",
         ("A", "H")),
    Page("output", "The output O = A V",
         "Each row of O mixes the value rows with the row's weights. Row 4 is 0.87 of mat's value plus "
         "three slivers of 0.043: the \"it\" row now carries the noun's content — retrieval by content, "
         "the thing Lesson 07 could not do. Row 1 of O equals row 1 of V.",
         ("A", "V", "O")),
    Page("lenses", "Engineering lenses",
         "Row t of O is a Nadaraya–Watson kernel smoother with κ(q, k) = exp(q·k/√d_k); softmax's "
         "normalisation is the smoother's denominator, and κ ≡ 1 (W_Q = W_K = 0) gives Lesson 07's "
         "prefix average back exactly. Read as an associative memory: keys are addresses, values are "
         "contents, the query is a probe. The lenses screen (l) has all of them, live.",
         ("nw", "memory")),
    Page("ex1", "Exercise 1 — the scale matters",
         "Remove the 1/√d_k factor (u). How do the row entropies change when d_k = 4? Double the "
         "diagonal of Q and K to make the dot products larger — what does softmax do to H(A_t) as the "
         "scores grow?",
         ("S", "A", "H"),
         TryIt("load the hand-crafted Q, K with their diagonal doubled", "exercise1-doubled", row=3)),
    Page("ex2", "Exercise 2 — drop the mask",
         "Disable the causal mask. Confirm that token 1 now attends to future tokens. Why does this "
         "break language-model training? (The model would read the very token it must predict.)",
         ("M", "A"),
         TryIt("the hand-crafted Q, K with no mask, row 1 selected", "lesson-handcrafted",
               (("mask", "none"),), row=0)),
    Page("ex3", "Exercise 3 — self vs. cross",
         "Let keys and values come from another sequence Y (T'×d_model) while queries still come from "
         "X. Which shapes change? K and V become T'×d_k and T'×d_v, S and A become T×T'. Does a causal "
         "mask still make sense, and when?",
         ("formula", "K", "S"),
         TryIt("load the cross-attention scenario (keys and values from Y)", "cross-attention", row=0)),
    Page("ex4", "Exercise 4 — parameter counting",
         "For d_model = 384, d_k = d_v = 64, count the parameters of W_Q, W_K, W_V together: "
         "d_model(2d_k + d_v). Add an output projection W_O (d_v × d_model) — what is the total now? "
         "The count does not depend on the sequence length T.",
         ("cost",),
         TryIt("open the cost lens", mode="lenses")),
    Page("ex5", "Exercise 5 — complexity",
         "S = QKᵀ has T × T entries. How does the cost of computing S scale with T? Why is this the "
         "bottleneck that motivates efficient attention (FlashAttention, sliding windows, linear "
         "attention)?",
         ("cost",),
         TryIt("open the cost lens", mode="lenses")),
)

EXERCISES = tuple(p for p in PAGES if p.try_it is not None)

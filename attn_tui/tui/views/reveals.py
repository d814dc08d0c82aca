"""What the tour shows once the learner has predicted (or skipped): the answer taught.

Pure functions () -> str, every number from the lesson's built-ins run through the core now
(tests/views/test_tour_questions.py compares each with the core). The questions that lead
here are in attn_tui/tui/tour_questions.py; nothing here is shown before a prediction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core import lenses
from ...core.builtins import builtin
from .teaching import f2, g, hand, pipe

if TYPE_CHECKING:
    from attn_tui.core.attention import Trace


def unscaled(name: str):
    s = builtin(name).with_(scaled=False)
    return s, s.run()


def saturation_rows(name: str = "lesson-pipeline"):
    """The rows that unscaled scores saturate (H < 0.1 bit, not row 1): (rows, H, max p(1−p))."""
    _, tr = unscaled(name)
    rows = [t for t in range(1, len(tr.H)) if tr.H[t] < 0.1]
    worst = max(float(np.max(lenses.jacobian_diag(tr.A[t]))) for t in rows) if rows else 0.0
    return rows, [float(tr.H[t]) for t in rows], worst


def scale_reveal() -> str:
    s, tr = pipe()
    _, un = unscaled("lesson-pipeline")
    rows, hs, worst = saturation_rows()
    span = f"{rows[0] + 1}–{rows[-1] + 1}" if rows else "none"
    hs_txt = f"{min(hs):.3f}–{max(hs):.3f}" if hs else "—"
    return (
        f"Unscaled, the pipeline's row 4 falls from H = {f2(tr.H[3])} to {un.H[3]:.3f} bits: the raw scores "
        f"are √d_k = {g(np.sqrt(s.d_k))} times larger ({g(un.S[3, 0])} on 'mat' against 0).\n\n"
        "Saturation follows the size of the scores; d_k sets that size only when q and k have zero-mean, "
        f"unit-variance components. The pipeline's q and k are hand-built, not unit-variance, so at d_k = "
        f"{s.d_k} its unscaled rows {span} already saturate: H = {hs_txt} bits, max p(1−p) ≤ {worst:.4f}. "
        "With random unit-variance q, k it takes a large d_k (the experiments screen, x: d_k = 512)."
    )


def ex1_reveal() -> str:
    s, tr = hand()
    _, un = unscaled("lesson-handcrafted")
    rows = ", ".join(f"{f2(a)} → {f2(b)}" for a, b in zip(tr.H[1:], un.H[1:]))
    return (
        f"Unscaled, the scores are √d_k = {g(np.sqrt(s.d_k))} times larger and every row but row 1 (which sees "
        f"only itself, H = 0) sharpens: H(A_t) scaled → unscaled for rows 2–{s.T}: {rows} bits. At these small "
        "scores the rows sharpen but do not saturate."
    )


def doubled_reveal() -> str:
    s, tr = hand()
    d = builtin("exercise1-doubled").run()
    t = s.T - 1  # the last row: its half-and-half query ties keys
    row = tr.S[t][~tr.blocked[t]]
    k = int(np.sum(row == row.max()))
    drow = d.S[t][~d.blocked[t]]
    k2 = int(np.sum(drow == drow.max()))
    return (
        f"Row 4: H = {f2(tr.H[3])} → {f2(d.H[3])} bits with the diagonal doubled. Larger scores make softmax "
        "sharper: as they grow, H(A_t) falls toward 0 when one key leads (one key takes the row), and with it "
        "p(1−p), the gradient softmax passes (the gradient lens, l). A row whose top k keys tie falls only to "
        f"log₂k: the hand-crafted row {t + 1} ties {k} keys, so turning c up (+) brings its H down toward "
        f"{f2(np.log2(k))} bits from above, never below, however far c goes: c multiplies every score alike, "
        f"so the tie stays. Doubling the diagonal changes some scores and not others: row {t + 1}'s tie there is "
        f"{k2} keys, and its H falls toward {f2(np.log2(k2))} bits instead."
    )


def ex2_reveal() -> str:
    s = builtin("lesson-handcrafted").with_(mask="none")
    a = s.run().A[0]
    future = ", ".join(f"{f2(x)} on t{i + 1}" for i, x in enumerate(a) if i > 0)
    return (
        f"Without the mask row 1 keeps {f2(a[0])} on itself and gives {f2(1 - a[0])} to the future: {future}. "
        "That breaks language-model training: the target at position t + 1 is in what position t reads, so the "
        "model learns to copy it, and at generation time the future it learned to read is not there."
    )


def _shape_names(tr: Trace) -> tuple[str, ...]:
    """The matrices whose shape involves T′ (the keys' sequence) in a cross-attention trace."""
    T = tr.Q.shape[0]
    names = ("Q", "K", "V", "S", "A", "O")
    return tuple(n for n in names if getattr(tr, n).shape != (T, getattr(tr, n).shape[1]) or n in ("S", "A"))


SHAPE_CHOICES = ("only K and V", "K, V, S and A (Q and O keep T rows)", "all six: Q, K, V, S, A and O")


def shapes_answer() -> float:
    tr = builtin("cross-attention").run()
    changed = _shape_names(tr)
    return float({("K", "V"): 1, ("K", "V", "S", "A"): 2}.get(changed, 3))


def ex3_shapes_reveal() -> str:
    s = builtin("cross-attention")
    tr = s.run()
    return (
        f"In the built-in cross-attention (T = {s.T}, T′ = {s.T_k}): K = Y W_K is {tr.K.shape[0]}×{tr.K.shape[1]}, "
        f"V = Y W_V {tr.V.shape[0]}×{tr.V.shape[1]}, S and A {tr.S.shape[0]}×{tr.S.shape[1]} "
        f"({tr.S.size} entries). Q = X W_Q stays {tr.Q.shape[0]}×{tr.Q.shape[1]} and O = A V "
        f"{tr.O.shape[0]}×{tr.O.shape[1]}: one output row per query."
    )


MASK_CHOICES = (
    "yes, always, as in self-attention",
    "never",
    "only when Y's position i is the same moment as X's position t",
)


def ex3_mask_reveal() -> str:
    s = builtin("cross-attention")
    return (
        "A source sequence (the sentence being translated, a document, an image) is fully known before the "
        "queries run, so every query may read every key: no mask (the built-in uses mask = "
        f"{s.mask}). A causal mask makes sense only when Y's position i is the same moment as X's position t "
        "(two streams produced in step), so that i > t is the future."
    )


def ex4_reveal() -> str:
    n = lenses.param_count(384, 64, 64)
    return f"d_model(2d_k + d_v) = 384·(2·64 + 64) = {n:,}: three 384×64 matrices of {384 * 64:,} each."


def ex4_out_reveal() -> str:
    n, no = lenses.param_count(384, 64, 64), lenses.param_count(384, 64, 64, with_output=True)
    return f"W_O is 64×384 = {no - n:,} more: {n:,} + {no - n:,} = {no:,}. None of it depends on the sequence length T."


def ex5_reveal() -> str:
    c = lenses.score_cost(4096, 64)
    return (
        "S = QKᵀ takes T·T′·d_k multiply-adds and O = A V T·T′·d_v more: both grow as T², and S has T² "
        f"entries to store (at T = 4096, d_k = 64: {c['entries']:,} entries, {c['flops_S']:,} FLOPs for S).\n\n"
        "Which variant attacks what: without a mask FlashAttention still does all 2T²d_k multiply-adds (S and O, "
        "d_v = d_k), and under a causal mask FlashAttention-2 (Dao 2023) skips the tiles wholly above the diagonal, "
        "about half of them; it removes the T² memory — S is computed in tiles that stay in fast memory, the softmax "
        "runs online "
        "(a running max and sum), and S is never stored — and cuts the traffic to slow memory, which still grows "
        "as T² (Θ(T²d²/M) accesses for a fast memory of M, Dao et al. 2022). A sliding window (each query reads its "
        "last w keys) cuts work and memory to O(T·w). Linear attention replaces exp(q·k) by a feature map "
        "φ(q)·φ(k) and computes φ(Q)(φ(K)ᵀV): O(T·d²), no T×T matrix at all."
    )


def rank_reveal() -> str:
    s, tr = pipe()
    h, ht = hand()
    r = lenses.rank_info(tr.S, tr.Q, tr.K)
    rh = lenses.rank_info(ht.S, ht.Q, ht.K)
    ra, rah = int(np.linalg.matrix_rank(tr.A)), int(np.linalg.matrix_rank(ht.A))
    return (
        f"rank S = {r['S']} (rank Q = {r['Q']}, rank K = {r['K']}, d_k = {r['d_k']}); the hand-crafted S has "
        f"rank {rh['S']} too. The queries only ever ask {r['S']} independent questions. A head with d_k "
        "dimensions can pose at most d_k, which is why multi-head attention can afford a small d_k per head, and "
        "why a single head cannot realise an arbitrary T×T pattern.\n\n"
        f"A itself is full rank: rank A = {ra} for the pipeline and {rah} for the hand-crafted A. Mask and "
        "softmax act after S, and a causal A is lower-triangular with a positive diagonal (each row weighs "
        "its own key), so it is always full rank. The budget is on the scores."
    )

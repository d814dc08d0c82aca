"""The tour's page on many heads (the lesson's "What's next"), its numbers from the core: the
shipped induction-demo on a repeated sequence, its strongest previous-token and induction heads,
each head's entropy against log₂ t. The page's try-it opens the heads screen on that sequence
(screens/heads.py: try_it)."""

from __future__ import annotations

from ...core.heads import combine, layer_readings, open_heads, sort_readings
from ...core.numfmt import fit_number

TOUR_TOKENS = "q w e r t y q w e r t y"  # six letters, then the same six: the induction head's task


def heads_page() -> str:
    src = open_heads("induction-demo", TOUR_TOKENS)
    prev = sort_readings(layer_readings(src, 0), "prev_token")[0]
    ind = sort_readings(layer_readings(src, 1), "induction")[0]
    c = combine(src, 1)
    assert c is not None  # induction-demo holds W_O
    n = src.n_heads

    def bits(r) -> str:
        h, top = fit_number(r.mean_entropy_bits, 4), fit_number(r.mean_ceiling_bits, 4)
        return f"mean H = {h} bits against the mean ceiling log₂ t = {top}"

    return (
        "The lesson's \"What's next\": multi-head attention runs several heads in parallel, each with its own "
        "W_Q^(h), W_K^(h), W_V^(h), then concatenates their outputs and projects them back: "
        'concat(O₁…O_H) W_O = Σ_h O_h W_O^(h). "Different heads learn to specialise" — and the entropies are '
        '"the measurement that says how far" each sits below log₂ t.\n\n'
        f"induction-demo is a small two-layer, attention-only model ({src.n_layers} layers of {n} heads, trained "
        f'on sequences that repeat). On "{TOUR_TOKENS}":\n'
        f"• layer 0, head {prev.head} is a previous-token head: mean A[t, t−1] = {fit_number(prev.prev_token, 4)}, "
        f"{bits(prev)};\n"
        f"• layer 1, head {ind.head} is an induction head: on a token seen before it puts "
        f"{fit_number(ind.induction, 4)} of its weight on the tokens that followed its earlier occurrences, "
        f"{bits(ind)}.\n"
        f"The layer's combine checks out: max |concat W_O − Σ_h O_h W_O^(h)| = {fit_number(c.max_abs_diff, 7)}, "
        "within the "
        f"rounding bound {fit_number(c.tolerance, 7)}.\n\n"
        "Try it opens the heads screen on that sequence: every head of a layer as a picture of its A with its "
        "readings. v sorts by a column (find the heads by their numbers), } and { change layer, i types your own "
        "sequence (repeat some letters and watch the induction head follow), enter opens a head on the pipeline, "
        "where > and < move to the next head and P pins one to compare with another. W weighs each picture by "
        "the size of each key's value (what the head moves: the next page), and the last tile follows every "
        "layer at once (attention rollout: each layer's heads averaged, half kept for the residual)."
    )


# A row that parks most of its weight on a "sink" whose value is near zero (rows t1..t4, keys t1..t4).
SINK_ROW = (0.70, 0.0, 0.30, 0.0)  # row t4 of A: 0.70 on t1, 0.30 on t3
SINK_V = ((0.05, 0.0), (0.6, 0.8), (0.0, 1.0), (0.8, 0.6))  # ‖v₁‖ = 0.05, the others 1


def moves_page() -> str:
    """What a head moves (issue 40): O = A V weighs each key's weight by its value; computed now."""
    import numpy as np

    from ...core.heads.weighting import scale_for, weigh

    A, V = np.array(SINK_ROW), np.array(SINK_V)
    scale = scale_for("value", V)
    assert scale is not None  # None only for "info" without a W_O
    vw = weigh(A, scale)
    norms = np.linalg.norm(V, axis=1)

    def n(x) -> str:
        return fit_number(float(x), 4)

    return (
        "The lesson's value mix O = A V: row t of the output is Σ_j A[t, j] v_j, and a value is \"what it "
        "contributes if selected\". A's row says where t looks; what it takes from each key is that weight "
        "times the key's value, so a weight on a key whose value is small contributes little. In trained "
        "models many heads put much of a row on the first token, whose value is near zero, when there is "
        'nothing worth reading (the "attention sink" of Xiao et al. 2023).\n\n'
        f"Computed now: row t4 puts A = {n(A[0])} on t1 and {n(A[2])} on t3; ‖v₁‖ = {n(norms[0])}, "
        f"‖v₃‖ = {n(norms[2])}. Value-weighted, A[t, j]·‖v_j‖ / max‖v‖ = {n(vw[0])} on t1 and {n(vw[2])} on "
        f"t3: the sink goes dark, and the row sums to {n(vw.sum())}, not 1 — the rest was weight spent on a "
        "key that carries almost nothing.\n\n"
        "W in the explorer cycles what A's grid, the chart and the heads screen show: A, value-weighted A, "
        "info-weighted A (‖v_j W_O^(h)‖: what the key writes into the model's output, when the source holds "
        "W_O), and A again. Try it on induction-demo (--scenario induction-demo): press W on a head and "
        "watch which of its weights survive."
    )

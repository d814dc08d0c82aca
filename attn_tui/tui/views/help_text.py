"""The help screen's own paragraphs, in the lesson's words, numbers computed by the core.

Built when the help opens: exercise 1's answer quotes the hand-crafted rows' entropies
with and without the scale, and the tie that keeps a row at 1 bit comes from the
pipeline's own row 5 (tests/views/test_teaching_text.py checks both against the core).
"""

from __future__ import annotations

from ...core import experiments, lenses
from ...core.info import row_entropies_bits
from . import reveals, teaching

INSPECTOR = "Cell inspector: how the cell under the cursor was computed, with the numbers."


def intro() -> str:
    return (
        "# attn-tui: scaled dot-product attention, live\n\n"
        "    Attn(Q, K, V) = softmax(c · Q Kᵀ / √d_k + M) V\n\n"
        "Each token emits a query (what it's looking for), a key (what it advertises) and a value (what it "
        "contributes if selected). The output for token t is a weighted mix of the values of the tokens it "
        "may see (tokens 1..t under the causal mask), weighted by how well its query matches each key. "
        "Dividing by √d_k keeps the input to softmax at roughly unit variance regardless of dimension (for "
        "q, k with independent zero-mean unit-variance components); c multiplies that operating point "
        "(the lesson's entropy knob).\n"
    )


def unscaled_entropies() -> tuple[list[str], list[str]]:
    """H(A_t) of the hand-crafted rows, two decimals, scaled and with the scale removed."""
    s, tr = teaching.hand()
    raw = row_entropies_bits(s.with_(scaled=False).run().A)
    return [f"{h:.2f}" for h in tr.H], [f"{h:.2f}" for h in raw]


def tie_row():
    """(row, keys tied, limit bits): the pipeline's first row whose largest scores tie."""
    s, tr = teaching.pipe()
    for t in range(s.T):
        bits = lenses.sharp_limit_bits(tr.S[t], ~tr.blocked[t])
        if bits > 0:
            top = tr.S[t][~tr.blocked[t]].max()
            names = [s.keys[i] for i in range(s.T_k) if not tr.blocked[t, i] and tr.S[t, i] == top]
            return t, names, bits
    return None


def chart() -> str:
    s, _ = teaching.hand()
    before, after = unscaled_entropies()
    tie = tie_row()
    tie_words = ""
    if tie is not None:
        t, names, bits = tie
        tie_words = (
            f"; a tie keeps log₂k bits of the k tied keys: the pipeline's row {t + 1} ties "
            f"{' and '.join(repr(n) for n in names)} and goes to {teaching.g(bits)} bit"
        )
    return (
        "Softmax chart: the selected row's scores c·q·k/√d_k (c·q·k with the scale off; left) and its "
        "softmax (right), titled with c and H(A_t) in bits against the log₂t ceiling. The scores' axis "
        "holds still while c changes, so + visibly lengthens the bars; when a bar would run off it, it "
        'doubles, as often as needed, and its title says so ("axis 2× wider"), its labels still the scores '
        'themselves (a title ending "×1e6" is the other case: a row whose largest |score| is 10⁵ or more, '
        "or under 10⁻³, is drawn in those units). The scale is an "
        "entropy knob: turn c up (+) and the row sharpens toward its largest score (H → 0 when one score "
        f"leads{tie_words}); turn it down (-) and it flattens toward uniform (H → log₂t). Remove the "
        f"scale (u) and the scores grow √d_k times. At d_k = {s.d_k} that is only ×{teaching.g(s.d_k**0.5)}: "
        f"the hand-crafted rows' H goes {'/'.join(before)} → {'/'.join(after)} bits. {saturation()} "
        "With many keys the chart shows only the heaviest keys."
    )


def saturation() -> str:
    """Saturation follows the size of the scores, said with the pipeline's own unscaled rows."""
    rows, hs, worst = reveals.saturation_rows()
    pipe = (
        f"the opening pipeline's hand-built q, k at d_k = {teaching.pipe()[0].d_k} saturate unscaled: rows "
        f"{rows[0] + 1}–{rows[-1] + 1} reach H = {min(hs):.3f}–{max(hs):.3f} bits, max p(1−p) ≤ {worst:.4f}"
        if rows
        else "the opening pipeline does not saturate unscaled"
    )
    return (
        "Saturation follows the size of the scores; d_k sets that size only for q, k with zero-mean "
        f"unit-variance components, as in the lesson's d_k = {experiments.DKS[-1]} row (the experiments "
        f"screen, x). Scores can be large at any d_k: {pipe}."
    )

"""core.modes: the mode switches against their rules, and the lesson's explanation lines in full
for a scenario of each NaN cause (masked with either fill, overflowing inputs, overflowing
scores, an overflowing S + M), finite fully-masked rows and cross-attention masks.

The sentences are the lesson's (checked against it when written); the rows, positions, dtypes
and largest finite numbers in them are computed here from the scenario. Written to kill the
mutants of core/modes.py (scripts/mutation.sh).
"""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

import numpy as np

from attn_tui.core import modes
from attn_tui.core.builtins import builtin
from attn_tui.core.diagnose import nan_causes, overflows
from attn_tui.core.edit import EditError
from attn_tui.core.scenario import Scenario
from tests import refusals

F16_MAX = "65504"  # float16's largest finite number
MASKED_F64 = (
    "every key is masked and the fill is -inf, so the stable softmax computes -inf - (-inf) = NaN. "
    "Frameworks mask with a finite fill (-1e9, or the dtype's min; f)."
)
MASKED_F16 = (
    f"every key is masked and the fill is -1e9, which is -inf in float16 (largest finite {F16_MAX}), so the "
    "stable softmax computes "
    "-inf - (-inf) = NaN. Frameworks mask with a finite constant chosen per dtype: here the dtype's min (f), "
    "since -1e9 itself overflows float16."
)
SPREADS = (
    "every key is masked; the finite fill keeps it a number, but it spreads over keys it should not see "
    "(batches ignore padded rows)."
)


refuses = partial(refusals.refuses, EditError)


def lines(s):
    return modes.explanations(s, s.run())


def test_nan_rows_from_a_minus_inf_fill_are_named_together():
    s = builtin("lesson-pipeline").with_(fill="-inf", padding=(1, 2))
    assert lines(s) == [f"NaN in row t1 mat, t2 was: {MASKED_F64}"]


def test_float16_turns_the_minus_1e9_fill_into_minus_inf():
    s = builtin("lesson-pipeline").with_(dtype="float16", padding=(1,))
    fill = (
        f"float16: the -1e9 fill overflows to -inf (largest finite float16 is {F16_MAX}), so masked cells "
        "hold -inf; fill 'dtype min' stays finite."
    )
    assert lines(s.with_(padding=())) == [fill]  # causal only: masked cells, no NaN row
    # A fully masked row's NaN sentence says the fill overflows: the fill line would repeat it (two
    # explanations took 5 lines at 120 columns and the line's 4 cut the second mid-sentence)
    assert lines(s) == [f"NaN in row t1 mat: {MASKED_F16}"]
    assert lines(s.with_(padding=(), mask="none")) == []  # nothing masked: the fill is never used


def test_finite_fully_masked_rows_spread():
    s = builtin("lesson-pipeline").with_(fill="min", padding=(1, 2))
    assert lines(s) == [f"row t1 mat, t2 was: {SPREADS}"]


def test_overflowing_scores():
    big = [[400.0, 0.0], [400.0, 1.0]]
    s = Scenario(Q=big, K=big, dtype="float16", mask="none", tokens=("a", "b"))
    tr = s.run()
    where = nan_causes(tr)[0].where
    assert {c.kind for c in nan_causes(tr)} == {"scores"}
    assert lines(s) == [
        f"NaN in row a, b: the score {where} overflowed float16 (largest finite {F16_MAX}), so the stable "
        "softmax computes inf - inf = NaN; the mask is not to blame. Lower c or the inputs, or use a wider dtype.",
        f"overflow in float16: {', '.join(overflows(tr))} (beyond ±{F16_MAX}, not a mask fill); "
        "the numbers computed from it are not to be trusted.",
    ]


def test_overflowing_inputs():
    s = Scenario(
        X=[[1000.0], [0.001]], W_Q=[[100.0]], W_K=[[1.0]], W_V=[[1.0]], dtype="float16", mask="none", tokens=("a", "b")
    )
    tr = s.run()
    causes = nan_causes(tr)
    assert [c.kind for c in causes] == ["inputs"]
    ov = overflows(tr)
    assert len(ov) >= 2
    assert lines(s) == [
        f"NaN in row a: {causes[0].where}: Q or K overflowed float16 (largest finite {F16_MAX}), so its scores "
        "are not numbers. Use smaller inputs or a wider dtype; the mask is not to blame.",
        f"overflow in float16: {', '.join(ov)} (beyond ±{F16_MAX}, not a mask fill); "
        "the numbers computed from it are not to be trusted.",
    ]


def test_an_overflowing_score_plus_mask():
    s = Scenario(Q=[[10.0], [1.0]], K=[[-10.0], [-10.0]], dtype="float16", fill="min", padding=(1,), tokens=("a", "b"))
    tr = s.run()
    assert [c.kind for c in nan_causes(tr)] == ["sum"]
    assert lines(s) == [
        "NaN in row a: S + M is -inf on every key: a negative score plus the fill overflowed float16, "
        "so -inf - (-inf) = NaN."
    ]
    assert modes._nan_sentence("other", None, s, "1") == "a non-finite intermediate (see the inspector)."


def test_cross_attention_masks_say_what_they_assume():
    on, _ = modes.set_cross(builtin("lesson-pipeline"), True)
    same = (
        "cross-attention with T' = T: {} only makes sense if Y's position i is the same moment as X's position i "
        "(e.g. a second view of the same stream)"
    )
    assert lines(on) == [same.format("a causal mask")]
    assert lines(modes.set_mask(on, "window")) == [same.format("a sliding window")]
    assert lines(modes.set_mask(on, "none")) == []
    other = builtin("cross-attention")  # T' = 3, T = 5
    why = (
        "cross-attention: Y has its own 3 positions, not X's 5; 'key after query' means nothing, and a source "
        "sequence is fully known"
    )
    assert modes.causal_allowed(other) == (False, why)
    refuses(f"mask: causal is not offered -- {why}", modes.set_mask, other, "causal")
    assert modes.set_mask(other, "none").mask == "none"
    assert modes.causal_allowed(builtin("lesson-pipeline")) == (
        True,
        "self-attention: token t may only read tokens 1..t",
    )


def test_set_mask_window_widths():
    s = builtin("lesson-pipeline")  # T = T' = 5
    assert modes.set_mask(s, "window").window == 2
    assert modes.set_mask(s.with_(mask="window", window=3), "window").window == 3
    assert modes.set_mask(s, "window", 1).window == 1 and modes.set_mask(s, "window", 5).window == 5
    refuses("window: width 6 must be a whole number from 1 to 5", modes.set_mask, s, "window", 6)
    refuses("window: width True must be a whole number from 1 to 5", modes.set_mask, s, "window", True)
    one = Scenario(Q=[[1.0]], K=[[1.0]])
    refuses("window: width 2 must be a whole number from 1 to 1", modes.set_mask, one, "window", 2)
    refuses("mask: unknown mask 'diag'; use causal, none or window", modes.set_mask, s, "diag")


def test_padding_fill_and_dtype():
    s = builtin("lesson-pipeline")
    assert modes.set_padding(s, [5, 1, 5]).padding == (1, 5)
    refuses("padding: key position True is outside 1..5", modes.set_padding, s, [True])
    refuses("padding: key position 6 is outside 1..5", modes.set_padding, s, [6])
    refuses("fill: unknown fill 'zero'; use -1e9, -inf or min", modes.set_fill, s, "zero")
    refuses("dtype: unknown dtype 'int8'; use float64, float32, float16", modes.set_dtype, s, "int8")


def test_set_cross_on_off_and_its_notes():
    s = builtin("lesson-pipeline").with_(padding=(1, 5))
    refuses(
        "cross: this scenario gives Q and K directly; cross-attention needs X (keys and values come from a second "
        "sequence Y through W_K, W_V)",
        modes.set_cross,
        builtin("lesson-handcrafted"),
        True,
    )
    assert modes.set_cross(s, False) == (s, "cross-attention is already off")
    on, note = modes.set_cross(s, True)
    assert on.key_tokens == ("y1", "y2", "y3", "y4", "y5") and on.padding == () and np.array_equal(on.Y, s.X)
    head = "cross-attention on: keys and values now come from Y (a copy of X to edit); the mask stays causal: "
    assert note == head + modes.causal_allowed(on)[1]
    assert modes.set_cross(on, True) == (on, "cross-attention is already on")
    off, note = modes.set_cross(on, False)
    assert off.Y is None and off.key_tokens == () and note == "cross-attention off: keys and values come from X again"


def test_set_cross_keeping_padding_says_what_it_kept_and_dropped():
    s = builtin("lesson-pipeline").with_(padding=(1, 5))
    on, note = modes.set_cross_keeping_padding(s, True)
    assert on.padding == (1, 5) and note.endswith("; padding kept on key position 1, 5")
    assert note == modes.set_cross(s, True)[1] + "; padding kept on key position 1, 5"
    on_padded = on
    assert modes.set_cross_keeping_padding(on_padded, True) == (on_padded, "cross-attention is already on")
    wide = builtin("cross-attention").with_(mask="none", padding=(1, 3))  # T = 5, T' = 3
    narrow = wide.with_(X=wide.X[:2], tokens=wide.tokens[:2])  # T = 2 < T' = 3
    off, note = modes.set_cross_keeping_padding(narrow, False)
    assert off.padding == (1,)
    assert note == (
        "cross-attention off: keys and values come from X again; padding kept on key position 1; "
        "padding of key position 3 dropped (b pads keys again)"
    )


def test_summary():
    s = builtin("cross-attention").with_(mask="none", padding=(1, 3), fill="-inf", dtype="float32")
    assert modes.summary(s) == "mask none · fill -inf · float32 · pad 1,3 · cross 5x3"
    w = builtin("lesson-pipeline").with_(mask="window", window=2, fill="min")
    assert modes.summary(w) == "mask window 2 · fill dtype min · float64"


def test_explanations_large_from_each_row_s_count_of_visible_keys():
    """explanations_large reads lz.visible (keys each row sees) and lz.nan_rows only."""
    s = builtin("lesson-pipeline").with_(dtype="float16", padding=(1,))  # T = T' = 5
    many = Scenario(Q=np.ones((10, 1)), K=np.ones((10, 1)), dtype="float16")
    names = ", ".join(many.tokens[:8])
    fill = (
        f"float16: the -1e9 fill overflows to -inf (largest finite float16 is {F16_MAX}), so masked cells "
        "hold -inf; fill 'dtype min' stays finite."
    )
    lz = SimpleNamespace(visible=np.array([0, 1, 2, 3, 4]), nan_rows=(0,))
    assert modes.explanations_large(s, lz) == [f"NaN in row t1 mat: {MASKED_F16}"]  # it says the fill overflows
    lz = SimpleNamespace(visible=np.array([1, 1, 2, 3, 4]), nan_rows=())
    assert modes.explanations_large(s, lz) == [fill]  # masked cells, no NaN row: the fill line
    lz = SimpleNamespace(visible=np.zeros(10, dtype=int), nan_rows=tuple(range(10)))
    assert modes.explanations_large(many, lz) == [f"NaN in row {names} ...: {MASKED_F16}"]
    lz = SimpleNamespace(visible=np.zeros(8, dtype=int), nan_rows=tuple(range(8)))
    assert modes.explanations_large(many, lz) == [f"NaN in row {names}: {MASKED_F16}"]
    lz = SimpleNamespace(visible=np.zeros(9, dtype=int), nan_rows=tuple(range(9)))
    assert modes.explanations_large(many, lz) == [f"NaN in row {names} ...: {MASKED_F16}"]
    lz = SimpleNamespace(visible=np.array([0] * 8 + [10, 10]), nan_rows=())
    assert modes.explanations_large(many.with_(fill="min", dtype="float64"), lz) == [f"row {names}: {SPREADS}"]
    finite = many.with_(fill="min", dtype="float64")
    lz = SimpleNamespace(visible=np.array([0] * 9 + [10]), nan_rows=())
    assert modes.explanations_large(finite, lz) == [f"row {names} ...: {SPREADS}"]
    lz = SimpleNamespace(visible=np.array([0, 0] + [10] * 8), nan_rows=())
    assert modes.explanations_large(finite, lz) == [f"row t1, t2: {SPREADS}"]
    lz = SimpleNamespace(visible=np.full(10, 10), nan_rows=())
    assert modes.explanations_large(many, lz) == []  # float16, but no key masked: the fill is unused
    on, _ = modes.set_cross(builtin("lesson-pipeline"), True)
    lz = SimpleNamespace(visible=np.arange(1, 6), nan_rows=())
    assert modes.explanations_large(on, lz) == [modes.causal_allowed(on)[1]]
    assert (
        modes.explanations_large(modes.set_mask(on, "none"), SimpleNamespace(visible=np.full(5, 5), nan_rows=())) == []
    )

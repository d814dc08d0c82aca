"""NaN rows get their true cause (mask vs overflow) in the explain line, inspector and report;
the entropy ceiling of a row that sees no key is one "—" everywhere; huge numbers print in
e-notation. No UI needed."""

from __future__ import annotations

import json
import re

import numpy as np

from attn_tui.core.builtins import builtin
from attn_tui.core.diagnose import NO_CEILING, ceiling_bits, nan_causes, overflows
from attn_tui.core.modes import explanations
from attn_tui.core.scenario import Scenario
from attn_tui.report.as_json import scenario_dict, scenario_json
from attn_tui.report.text import fmt_matrix, fmt_num, scenario_text
from attn_tui.tui.state import State
from attn_tui.tui.views.inspector import inspector_lines as explain


def overflow64() -> Scenario:
    """The review's file: Q = K = [[1e300, 0], [0, 1]] overflows S[1,1] in float64."""
    big = [[1e300, 0.0], [0.0, 1.0]]
    return Scenario(title="overflow", Q=big, K=big, mask="none")


def test_float64_overflow_is_blamed_on_the_scores_not_the_mask():
    s = overflow64()
    tr = s.run()
    assert tr.nan_rows == (0,)
    (cause,) = nan_causes(tr)
    assert cause.kind == "scores" and cause.where == "S[1,1] = inf"
    text = "\n".join(explanations(s, tr))
    assert "masked" not in text.split("overflow")[0] or "the mask is not to blame" in text
    assert "-inf - (-inf)" not in text
    assert "S[1,1] = inf" in text and "float64" in text and "inf - inf = NaN" in text


def test_float16_knob_overflow_is_blamed_on_the_scores(float16_knob):
    s = float16_knob()
    tr = s.run()
    assert 1 in tr.nan_rows
    kinds = {c.row: c.kind for c in nan_causes(tr)}
    assert kinds[1] == "scores"
    text = "\n".join(explanations(s, tr))
    assert "every key is masked" not in text
    assert "overflowed float16" in text and "65504" in text


def test_fully_masked_row_keeps_the_lessons_explanation():
    s = builtin("padding-nan")
    tr = s.run()
    assert [c.kind for c in nan_causes(tr)] == ["masked"]
    assert any("-inf - (-inf) = NaN" in ln for ln in explanations(s, tr))


def test_overflowing_q_in_float16_is_an_input_cause():
    s = Scenario(Q=[[1e6, 0.0], [0.0, 1.0]], K=[[1.0, 0.0], [0.0, 1.0]], mask="none", dtype="float16")
    tr = s.run()
    causes = nan_causes(tr)
    assert causes and causes[0].kind == "inputs" and causes[0].where.startswith("Q[1,1]")
    assert any(w.startswith("Q[1,1] = inf") for w in overflows(tr))


def test_overflow_warning_line_even_without_nan():
    # -inf at one open key of a row is harmless to the softmax but still an overflow
    s = Scenario(Q=[[-1e300, 0.0], [0.0, 1.0]], K=[[1e300, 1.0], [0.0, 1.0]], mask="none")
    tr = s.run()
    assert not tr.nan_rows
    assert any(ln.startswith("overflow in float64: S[1,1] = -inf") for ln in explanations(s, tr))


def test_inspector_names_the_overflow():
    st = State(overflow64())
    a = "\n".join(explain(st.with_(cursor=("A", 0, 0), row=0)))
    assert "masked with −∞" not in a and "scores overflowed float64" in a and "nothing is masked" in a
    sc = "\n".join(explain(st.with_(cursor=("S", 0, 0), row=0)))
    assert "overflow" in sc and "1.79769e+308" in sc


def test_report_gives_the_cause_and_e_notation():
    text = scenario_text(overflow64())
    assert "NaN rows: t1 (scores overflowed float64: S[1,1] = inf" in text
    assert "fully masked" not in text
    assert "1.000000e+300" in text and not re.search(r"\d{40}", text)
    assert "overflow in float64: S[1,1] = inf" in text


def test_report_formats_big_numbers_in_e_notation():
    assert fmt_num(1e300) == "1.000000e+300"
    assert fmt_num(-1e9) == "-1000000000"  # the lesson's fill still prints whole
    assert "1.000000e+20" in fmt_matrix(np.array([[1e20]]))
    assert "-1000000000.000000" in fmt_matrix(np.array([[-1e9]]))


def test_json_names_the_cause():
    d = json.loads(scenario_json(overflow64()))
    assert d["nan_row_causes"] == [{"row": 1, "cause": "scores", "why": d["nan_row_causes"][0]["why"]}]
    assert "overflowed" in d["nan_row_causes"][0]["why"]
    assert d["overflow"] == ["S[1,1] = inf"]


def test_ceiling_is_log2_of_visible_keys_and_dash_when_none():
    s = builtin("padding-nan")  # causal + key 1 padded: row 1 sees nothing, row t sees t - 1 keys
    tr = s.run()
    c = ceiling_bits(tr.blocked)
    assert np.isnan(c[0]) and np.allclose(c[1:], np.log2([1, 2, 3, 4]))
    lines = scenario_text(s).splitlines()
    row1 = next(ln for ln in lines if ln.startswith("  1     0"))
    assert NO_CEILING in row1 and "nan " not in row1.split("|")[0]
    assert scenario_dict(s)["entropy_ceiling_bits"][0] is None or np.isnan(scenario_dict(s)["entropy_ceiling_bits"][0])
    assert json.loads(scenario_json(s))["entropy_ceiling_bits"][0] is None


def test_finite_fill_fully_masked_row_has_no_ceiling_in_the_inspector():
    s = builtin("padding-nan").with_(fill="-1e9")
    st = State(s)
    text = "\n".join(explain(st.with_(cursor=("H", 0, 0), row=0)))
    assert f"ceiling {NO_CEILING}: no visible key" in text and "-inf" not in text


def test_dtype_min_fill_plus_negative_score_overflows_to_nan():
    """float16, fill 'dtype min', a fully masked row with negative scores: S + M = -inf
    on every key although neither S nor M is -inf; blamed on the sum, not on a -inf fill."""
    s = Scenario(
        Q=[[-100.0, 0.0], [1.0, 0.0]],
        K=[[1.0, 0.0], [1.0, 0.0]],
        mask="causal",
        padding=(1,),
        fill="min",
        dtype="float16",
    )
    tr = s.run()
    assert np.all(np.isfinite(tr.M)) and np.all(np.isfinite(tr.S))
    assert [c.kind for c in nan_causes(tr)] == ["sum"]
    text = "\n".join(explanations(s, tr))
    assert "S + M is -inf on every key" in text and "the fill is -inf" not in text
    assert "t1 (S + M overflowed to -inf on every key in float16)" in scenario_text(s)


def test_inspector_says_why_a_mask_cell_is_blocked():
    s = builtin("lesson-pipeline").with_(mask="window", window=2, padding=(2,))
    st = State(s)

    def m(r, c):
        return "\n".join(explain(st.with_(cursor=("M", r, c), row=r)))

    assert "outside the window of the last 2 keys" in m(4, 0)
    assert "a future key (causal)" in m(0, 3)
    assert "key 2 is padding" in m(3, 1)
    assert "open" in m(4, 4)
    f16 = State(builtin("lesson-pipeline").with_(dtype="float16"))
    assert "the -1e9 fill is -inf in float16" in "\n".join(explain(f16.with_(cursor=("M", 0, 1), row=0)))

"""The report's formatting and every line of a scenario report, on small scenarios whose
numbers are worked out here from the inputs (the layout is the documented rustlab print:
parts joined by one space, matrices with 6 decimals, scalars in shortest positional form)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.core.scenario import Scenario
from attn_tui.report import as_json
from attn_tui.report import text as report


# -- formatting --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x, want",
    [
        (True, "true"),
        (np.bool_(False), "false"),
        (np.int64(7), "7"),
        (-3, "-3"),
        (2.0, "2"),
        (-0.5, "-0.5"),
        (1e14, "100000000000000"),
        (999999999999999.0, "999999999999999"),
        (1e15, "1.000000e+15"),
        (-2.5e20, "-2.500000e+20"),
        (1e15 + 0.5, "1.000000e+15"),
        (np.inf, "Inf"),
        (-np.inf, "-Inf"),
        (np.nan, "NaN"),
        (np.float32(0.25), "0.25"),
        (1e-5, "0.00001"),
    ],
)
def test_fmt_num(x, want):
    assert report.fmt_num(x) == want


def test_fmt_cell_matrix_vector_and_rprint():
    assert report.BIG == 1e15
    assert report.fmt_cell(0.5) == "0.500000" and report.fmt_cell(-1e15) == "-1.000000e+15"
    assert report.fmt_cell(9.99e14) == "999000000000000.000000"
    assert report.fmt_cell(np.inf) == "inf" and report.fmt_cell(np.nan) == "nan"
    assert report.fmt_matrix([[1, 2], [3, 4.5]]) == "Matrix(2x2)\n  [1.000000, 2.000000]\n  [3.000000, 4.500000]"
    assert report.fmt_matrix(np.zeros((1, 3))) == "Matrix(1x3)\n  [0.000000, 0.000000, 0.000000]"
    assert report.fmt_vector(np.array([[1.0], [2e15]])) == "[1×2]  1.000000  2.000000e+15"
    assert report.fmt_part("text") == "text" and report.fmt_part(np.eye(1)) == "Matrix(1x1)\n  [1.000000]"
    part = report.fmt_part
    assert part([1, 2]) == part((1, 2)) == part(np.array([1, 2])) == "[1×2]  1.000000  2.000000"
    assert report.fmt_part(3.0) == "3" and report.rprint() == "" and report.rprint("a", "b") == "a b"
    assert report.rprint("x =", 0.5, "  y =", np.float64(2)) == "x = 0.5   y = 2"


# -- one scenario, every line ---------------------------------------------------------------
def tiny():
    """Q, K given directly: Q = I (2x2), K = [[2, 0], [0, 0], [1, 1]], V = [[1, 0], [0, 1], [2, 2]],
    no mask, c = 2 unscaled, key 3 padded, fill -inf."""
    return Scenario(
        title="tiny",
        tokens=("a", "b"),
        key_tokens=("x", "y", "z"),
        Q=np.eye(2),
        K=[[2.0, 0.0], [0.0, 0.0], [1.0, 1.0]],
        V=[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]],
        mask="none",
        padding=(3,),
        fill="-inf",
        c=2.0,
        scaled=False,
    )


def test_tiny_scenario_text_line_by_line():
    s = tiny()
    lines = report.scenario_text(s, "tiny-name").splitlines()
    # row a: scores 2·[2, 0, 1] = [4, 0, 2], key z padded: softmax over [4, 0]
    e = math.exp(-4.0)
    a0 = [1 / (1 + e), e / (1 + e), 0.0]
    # row b: scores 2·[0, 0, 1] = [0, 0, 2], z padded: [0.5, 0.5, 0]
    a1 = [0.5, 0.5, 0.0]
    h0 = -(a0[0] * math.log2(a0[0]) + a0[1] * math.log2(a0[1]))
    assert lines[0] == "tiny"
    assert lines[1] == "scenario: tiny-name"
    assert lines[2] == "T = 2   T' = 3   d_model = -   d_k = 2   d_v = 2"
    assert lines[3] == (
        "settings: mask = none   padding = [3]   fill = -inf   c = 2   scaled = false   (scale = 2)   dtype = float64"
    )
    assert lines[4] == "tokens: a, b" and lines[5] == "keys:   x, y, z" and lines[6] == ""
    i = lines.index("S = c * Q K^T (unscaled) =")
    assert lines[i + 1 : i + 4] == [
        "Matrix(2x3)",
        "  [4.000000, 0.000000, 2.000000]",
        "  [0.000000, 0.000000, 2.000000]",
    ]
    i = lines.index("M (additive mask, fill -inf) =")
    assert lines[i + 2] == "  [0.000000, 0.000000, -inf]"
    i = lines.index("A = softmax_row(S + M) =")
    assert lines[i + 2] == "  [" + ", ".join(f"{x:.6f}" for x in a0) + "]"
    assert lines[i + 3] == "  [0.500000, 0.500000, 0.000000]"
    i = lines.index("O = A V =")
    assert lines[i + 2] == f"  [{a0[0]:.6f}, {a0[1]:.6f}]" and lines[i + 3] == "  [0.500000, 0.500000]"
    i = lines.index("  t  keys  log2(keys) |  H(A_t)    2^H")
    assert lines[i - 1] == ""
    assert lines[i + 1] == f"  1     2        1.00 | {h0:7.2f} {2**h0:6.2f}"
    assert lines[i + 2] == "  2     2        1.00 |    1.00   2.00"
    assert lines[i + 3] == ""
    assert lines[i + 4] == "rank(S) = 2   rank(Q) = 2   rank(K) = 2   d_k = 2"
    assert lines[i + 5] == "params: n/a (Q, K, V given directly, no projections)"
    assert lines[i + 6] == "NaN rows: none"
    assert len(lines) == i + 7
    assert a1 == [0.5, 0.5, 0.0]


def test_scenario_text_without_a_name_keeps_the_blank_lines_after_the_header():
    s = tiny()
    lines = report.scenario_text(s).splitlines()
    assert lines[0] == "tiny" and lines[1].startswith("T = 2")  # no "scenario:" line
    assert lines[5] == "" and lines[6] == "Q ="


def test_window_padding_nan_rows_and_overflow_lines():
    s = builtin("lesson-pipeline").with_(mask="window", window=2, padding=(1,), fill="-inf")
    out = report.scenario_text(s)
    assert "settings: mask = window (window 2)   padding = [1]   fill = -inf" in out
    assert "NaN rows: t1 mat (fully masked with fill -inf: -inf - (-inf) = NaN)" in out
    lines = out.splitlines()
    i = lines.index("  t  keys  log2(keys) |  H(A_t)    2^H")
    assert lines[i + 1] == "  1     0           — |     nan    nan"  # sees no key: no ceiling
    assert lines[i + 2] == "  2     1        0.00 |    0.00   1.00"
    assert lines[i + 3].startswith("  3     2        1.00 |")
    big = builtin("lesson-pipeline").with_(dtype="float16", c=1.1**12)
    X = big.X.copy()
    X[1, 1] = 9000  # Q = X W_Q: 18000 in row 2; its score with key 1, 18000 · 3 · c / 2, overflows float16
    out = report.scenario_text(big.with_(X=X))
    assert "overflow in float16: " in out and "S[" in out
    assert "rank(S) = n/a (S not finite)" in out
    assert "params d_model * (2 d_k + d_v) = 72" in out


def test_visible_keys_counts_each_query_row():
    blocked = np.array([[False, True, True], [False, False, True]])
    assert report.visible_keys(blocked).tolist() == [1, 2]
    assert report.visible_keys(np.zeros((1, 4), dtype=bool)).tolist() == [4]


def test_settings_and_params():
    s = tiny()
    assert report.settings(s) == {
        "c": 2.0,
        "scaled": False,
        "scale": 2.0,
        "mask": "none",
        "window": None,
        "fill": "-inf",
        "dtype": "float64",
        "padding": [3],
    }
    assert report.settings(s.with_(scaled=True))["scale"] == pytest.approx(2 / math.sqrt(2), rel=1e-15)
    assert report.params_qkv(s) is None
    p = builtin("cross-attention")
    assert report.params_qkv(p) == p.W_Q.size + p.W_K.size + p.W_V.size


# -- JSON -----------------------------------------------------------------------------------
def test_clean_and_dumps():
    got = as_json.clean(
        {
            1: np.array([1.5, np.nan]),
            "t": (np.int32(3), np.bool_(True), -np.inf),
            "s": "x",
            "n": None,
            "f": np.float16(0.5),
        }
    )
    assert got == {"1": [1.5, None], "t": [3, True, None], "s": "x", "n": None, "f": 0.5}
    assert type(got["t"][0]) is int and type(got["t"][1]) is bool and type(got["f"]) is float
    assert as_json.dumps({"a": [1, "é"]}) == '{\n "a": [\n  1,\n  "é"\n ]\n}\n'
    with pytest.raises(ValueError):
        as_json.json.dumps(float("nan"), allow_nan=False)  # what dumps relies on


def test_tiny_scenario_dict():
    s = tiny()
    d = json.loads(as_json.scenario_json(s, "tiny-name"))
    assert d["name"] == "tiny-name" and d["title"] == "tiny"
    assert d["tokens"] == ["a", "b"] and d["key_tokens"] == ["x", "y", "z"] and d["features"] == []
    assert d["value_features"] == ["v1", "v2"]
    assert d["shape"] == {"T": 2, "T_k": 3, "d_model": None, "d_k": 2, "d_v": 2}
    assert "inputs" not in d
    assert d["S"] == [[4.0, 0.0, 2.0], [0.0, 0.0, 2.0]]
    assert d["mask"] == [[0.0, 0.0, None], [0.0, 0.0, None]]
    assert d["S_masked"] == [[4.0, 0.0, None], [0.0, 0.0, None]]
    assert d["blocked"] == [[False, False, True], [False, False, True]]
    assert d["A"][1] == [0.5, 0.5, 0.0] and d["O"][1] == [0.5, 0.5]
    assert d["row_entropy_bits"][1] == 1.0 and d["effective_tokens"][1] == 2.0
    assert d["rank"] == {"S": 2, "Q": 2, "K": 2, "d_k": 2}
    np.testing.assert_allclose(
        d["singular_values_S"], np.linalg.svd([[4.0, 0.0, 2.0], [0.0, 0.0, 2.0]], compute_uv=False), rtol=1e-12
    )
    assert d["params_qkv"] is None and d["params_with_W_O"] is None
    assert d["nan_rows"] == [] and d["nan_row_causes"] == [] and d["overflow"] == []
    assert d["entropy_ceiling_bits"] == [1.0, 1.0]


def test_projected_scenario_dict_inputs_and_nan_causes():
    s = builtin("padding-nan")
    d = as_json.scenario_dict(s, "padding-nan")
    assert set(d["inputs"]) == {"X", "W_Q", "W_K", "W_V"}
    assert d["params_with_W_O"] == 72 + 4 * 6
    assert d["nan_rows"] == [1]
    assert d["nan_row_causes"] == [
        {"row": 1, "cause": "masked", "why": "fully masked with fill -inf: -inf - (-inf) = NaN"}
    ]
    assert np.isnan(d["entropy_ceiling_bits"][0]) and d["entropy_ceiling_bits"][1] == 0.0
    c = as_json.scenario_dict(builtin("cross-attention"))
    assert set(c["inputs"]) == {"X", "W_Q", "W_K", "W_V", "Y"} and c["name"] == ""
    tr = s.run()
    assert as_json.scenario_dict(s, trace=tr)["A"] is tr.A  # a given trace is used, not recomputed


def test_lesson_dict_scalars():
    d = as_json.lesson_dict()
    n = report.lesson_numbers()
    assert d["lesson"] == "Lesson 08: Scaled Dot-Product Attention"
    assert d["scenarios"]["lesson-handcrafted"]["name"] == "lesson-handcrafted"
    assert d["scenarios"]["lesson-pipeline"]["name"] == "lesson-pipeline"
    assert d["A_1_1"] == 1.0 and d["largest_upper_triangle"] == 0.0 and d["params_qkv"] == 72
    assert d["max_abs_O1_minus_V1"] == 0.0 and d["box_kernel_diff"] == n["box_diff"]
    assert d["nadaraya_watson_diff"] == n["nw_diff"] and d["rng_note"] == report.RNG_NOTE
    np.testing.assert_array_equal(d["row_sums"], n["row_sums"])
    assert [p["c"] for p in d["entropy_at_c"]] == [0.1, 1.0, 3.0]
    assert set(d["saturation"]) == {"unscaled", "scaled", "log2_T"}
    assert json.loads(as_json.lesson_json())["params_qkv"] == 72


def test_joined_lists_in_the_scenario_report():
    s = builtin("lesson-pipeline").with_(padding=(1, 2), fill="-inf")  # rows 1 and 2 see only keys 1, 2
    why = "fully masked with fill -inf: -inf - (-inf) = NaN"
    assert f"NaN rows: t1 mat ({why}); t2 was ({why})\n" in report.scenario_text(s)
    big = builtin("lesson-pipeline").with_(dtype="float16")
    X = big.X.copy()
    X[0, 0] = 60000  # Q stays finite; K = X W_K: 180000 overflows, and so do the scores
    out = report.scenario_text(big.with_(X=X))
    from attn_tui.core.diagnose import overflows

    ov = overflows(big.with_(X=X).run())
    assert len(ov) >= 2 and f"overflow in float16: {ov[0]}, {ov[1]}" in out


def test_scenario_json_name_defaults_to_empty():
    assert json.loads(as_json.scenario_json(tiny()))["name"] == ""


def test_lesson_numbers_use_row_4_for_nadaraya_watson():
    from attn_tui.core import lenses

    n = report.lesson_numbers()
    tr2 = n["trace2"]
    row4, _ = lenses.nadaraya_watson_row(tr2.Q, tr2.K, tr2.V, 3, tr2.scale, tr2.blocked)
    assert n["nw_diff"] == lenses.max_abs_diff(row4, tr2.O[3])
    diffs = [
        lenses.max_abs_diff(lenses.nadaraya_watson_row(tr2.Q, tr2.K, tr2.V, t, tr2.scale, tr2.blocked)[0], tr2.O[t])
        for t in range(5)
    ]
    assert diffs[4] != diffs[3]  # rounding differs by row here, so the row is observable

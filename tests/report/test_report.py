"""The headless report: the lesson's printouts in its order and layout, JSON, experiments."""

import itertools
import json
import math
import re

import numpy as np
import pytest

from attn_tui.core import builtin, experiments
from attn_tui.report import as_json as report_json
from attn_tui.report import text as report
from tests.core import reference_attention as ref

# The lesson's printed output for its deterministic examples, verbatim.
LESSON_BLOCKS = [
    """A =
Matrix(5x5)
  [1.000000, 0.000000, 0.000000, 0.000000, 0.000000]
  [0.731059, 0.268941, 0.000000, 0.000000, 0.000000]
  [0.211942, 0.576117, 0.211942, 0.000000, 0.000000]
  [0.426933, 0.157060, 0.157060, 0.258948, 0.000000]
  [0.237357, 0.237357, 0.143964, 0.237357, 0.143964]""",
    """A(1,1) = 1    row sums = [1×5]  1.000000  1.000000  1.000000  1.000000  1.000000
largest upper-triangle entry = 0""",
    """A2 =
Matrix(5x5)
  [1.000000, 0.000000, 0.000000, 0.000000, 0.000000]
  [0.952574, 0.047426, 0.000000, 0.000000, 0.000000]
  [0.909443, 0.045279, 0.045279, 0.000000, 0.000000]
  [0.870049, 0.043317, 0.043317, 0.043317, 0.000000]
  [0.465255, 0.023164, 0.023164, 0.465255, 0.023164]
O =
Matrix(5x4)
  [1.000000, 0.000000, 0.000000, 0.000000]
  [0.952574, 0.047426, 0.000000, 0.000000]
  [0.909443, 0.045279, 0.045279, 0.000000]
  [0.870049, 0.043317, 0.043317, 0.043317]
  [0.465255, 0.046327, 0.023164, 0.465255]""",
    "max |O(1, :) - V(1, :)| = 0    params 3 * d_model * d_k = 72",
    "max|Nadaraya-Watson row 4 - O(4, :)| = ",
    "max|A(W_Q = W_K = 0) - W_avg| = 0\n",
    """ t  log2(t) |  hand-crafted A: H(A_t)  2^H  |  pipeline A2: H(A_t)  2^H
 1   0.00   |        0.00            1.00  |        0.00          1.00
 2   1.00   |        0.84            1.79  |        0.28          1.21
 3   1.58   |        1.41            2.65  |        0.53          1.44
 4   2.00   |        1.87            3.65  |        0.76          1.70
 5   2.32   |        2.28            4.87  |        1.40          2.65""",
    """rank(S)  = 2   rank(Q)  = 2   rank(K)  = 4   d_k = 4
rank(S2) = 2   rank(Q2) = 2   rank(K2) = 4""",
    "d_k = 4   Var(q.k) = ",
    "d_k = 64   Var(q.k) = ",
    "d_k = 512   Var(q.k) = ",
    "unscaled: max A = ",
    "scaled:   max A = ",
    "H(A_t) at c = 0.1, 1, 3: ",
]


@pytest.fixture  # per test, so that mutation testing maps every test that reads it to the report code
def text():
    return report.lesson_text()


def test_the_report_opens_with_its_title(text):
    assert text.splitlines()[:2] == [
        "Lesson 08: Scaled Dot-Product Attention -- every number the lesson prints, computed by attn_tui.core",
        "",
    ]
    assert text.endswith(" )\n") and "\n\n\n" not in text  # blocks one blank line apart, one newline at the end


def test_every_printed_block_in_the_lessons_order(text):
    positions = [text.find(b) for b in LESSON_BLOCKS]
    assert all(p >= 0 for p in positions), [b for b, p in zip(LESSON_BLOCKS, positions) if p < 0]
    assert positions == sorted(positions)


def test_nadaraya_watson_line_value(text):
    m = re.search(r"^max\|Nadaraya-Watson row 4 - O\(4, :\)\| = (\S+)$", text, re.MULTILINE)
    assert m and float(m.group(1)) < 1e-12 and "e" not in m.group(1)  # positional, like the lesson


def test_seeded_lines_and_the_rng_note(text):
    """Every seeded number the report prints, recomputed here from default_rng's draws."""
    lines = text.splitlines()
    var = [i for i, l in enumerate(lines) if l.startswith("d_k = ") and "Var(q.k) / d_k =" in l]
    assert len(var) == 3
    note = [i for i, l in enumerate(lines) if "NumPy" in l]
    assert len(note) == 1 and note[0] == var[0] - 1  # one line, right above the numbers
    for j, (i, d_k) in enumerate(zip(var, (4, 64, 512))):
        m = re.fullmatch(r"d_k = (\d+)   Var\(q\.k\) = (\S+)   Var\(q\.k\) / d_k = (\S+)", lines[i])
        assert m and int(m.group(1)) == d_k
        dots = ref.dots(d_k, 5000, 8 + j)
        assert float(m.group(2)) == pytest.approx(float(np.mean(dots**2)), rel=1e-12)
        assert float(m.group(3)) == pytest.approx(float(np.mean(dots**2)) / d_k, rel=1e-12)
        assert abs(float(m.group(3)) - 1) < 0.1
    unscaled, scaled = ref.saturation_rows(512, 8, 8)
    m = re.search(r"^unscaled: max A = (\S+)   H\(A\) = (\S+) bits$", text, re.MULTILINE)
    assert float(m.group(1)) == pytest.approx(max(unscaled), rel=1e-9)
    assert float(m.group(2)) == pytest.approx(ref.entropy_bits(unscaled), rel=1e-9, abs=1e-15)
    m = re.search(r"^scaled:   max A = (\S+)   H\(A\) = (\S+) bits   \(uniform over 8 = 3 bits\)$", text, re.MULTILINE)
    assert float(m.group(1)) == pytest.approx(max(scaled), rel=1e-9)
    assert float(m.group(2)) == pytest.approx(ref.entropy_bits(scaled), rel=1e-9)
    m = re.search(r"^H\(A_t\) at c = 0.1, 1, 3: (\S+) (\S+) (\S+) bits   \(log2 8 = 3 \)$", text, re.MULTILINE)
    s = ref.sweep_row(8, 16, 16)
    for got, c in zip(m.groups(), (0.1, 1.0, 3.0)):
        assert float(got) == pytest.approx(
            ref.entropy_bits(ref.softmax_visible([c * v for v in s], [True] * 8)), rel=1e-9
        )


def lesson_rows():
    """(H of the hand-crafted A, H of the pipeline's A2) per row, from the lesson's inputs."""
    hand, pipe = builtin("lesson-handcrafted"), builtin("lesson-pipeline")
    B = ref.blocked("causal", 5, 5)
    Q, K = hand.Q.tolist(), hand.K.tolist()
    _, A, _, H = ref.attention_rows(Q, K, np.eye(5).tolist(), B, 1 / math.sqrt(4))
    p = ref.reference(pipe)
    return A, H, p["A"], p["H"]


def test_entropy_table_line_by_line(text):
    """The lesson's fprintf table: t, log2 t, then H and 2^H of A and A2, each row recomputed."""
    _, H, _, H2 = lesson_rows()
    lines = text.splitlines()
    top = lines.index(" t  log2(t) |  hand-crafted A: H(A_t)  2^H  |  pipeline A2: H(A_t)  2^H")
    rows = lines[top + 1 : top + 6]
    for t, line in enumerate(rows, 1):
        want = (
            f" {t}   {math.log2(t):.2f}   |        {H[t - 1]:.2f}            {2 ** H[t - 1]:.2f}  |"
            f"        {H2[t - 1]:.2f}          {2 ** H2[t - 1]:.2f}"
        )
        assert line == want
    assert lines[top + 6] == ""  # five rows, then the next block


def test_lesson_matrices_and_scalars_recomputed(text):
    A, _H, A2, _H2 = lesson_rows()
    n = report.lesson_numbers()
    np.testing.assert_allclose(n["trace"].A, A, atol=1e-15)
    np.testing.assert_allclose(n["trace2"].A, A2, atol=1e-15)
    assert n["A_1_1"] == A[0][0]
    np.testing.assert_allclose(n["row_sums"], [math.fsum(r) for r in A], atol=1e-15)
    assert n["max_upper"] == max(A[t][i] for t in range(5) for i in range(5) if i > t) == 0
    pipe = builtin("lesson-pipeline")
    assert n["params_qkv"] == pipe.W_Q.size + pipe.W_K.size + pipe.W_V.size == 72
    assert n["T_sweep"] == 8
    assert n["diff_row1"] == max(abs(a - b) for a, b in zip(n["trace2"].O[0], pipe.X[0] @ pipe.W_V))


@pytest.mark.parametrize(
    "x,want",
    [
        (1.0, "1"),
        (0.0, "0"),
        (72, "72"),
        (3.0, "3"),
        (3.3306690738754696e-16, "0.00000000000000033306690738754696"),
        (1.914218322257698e-12, "0.000000000001914218322257698"),
        (2.995300634107477, "2.995300634107477"),
        (0.5235101584047486, "0.5235101584047486"),
        (float("nan"), "NaN"),
        (-float("inf"), "-Inf"),
    ],
)
def test_fmt_num_is_rustlabs_print(x, want):
    assert report.fmt_num(x) == want


def test_fmt_matrix_and_vector():
    assert report.fmt_matrix(np.array([[1, 0.5]])) == "Matrix(1x2)\n  [1.000000, 0.500000]"
    assert report.fmt_vector([1, 2]) == "[1×2]  1.000000  2.000000"
    assert report.rprint("a =", 1.0, "  b =", 2) == "a = 1   b = 2"


# -- one scenario ------------------------------------------------------------------
def test_scenario_text_sections():
    t = report.scenario_text(builtin("lesson-pipeline"), "lesson-pipeline")
    assert t.startswith(builtin("lesson-pipeline").title + "\n")
    order = [
        "Q =\nMatrix(5x4)",
        "K =\nMatrix(5x4)",
        "V =\nMatrix(5x4)",
        "S = c * Q K^T / sqrt(d_k) =",
        "M (additive mask, fill -1e9) =",
        "A = softmax_row(S + M) =",
        "O = A V =\nMatrix(5x4)",
        "H(A_t)",
        "rank(S) = 2   rank(Q) = 2   rank(K) = 4   d_k = 4",
        "params d_model * (2 d_k + d_v) = 72",
        "NaN rows: none",
    ]
    pos = [t.find(s) for s in order]
    assert all(p >= 0 for p in pos) and pos == sorted(pos), list(zip(order, pos))
    assert "  [0.870049, 0.043317, 0.043317, 0.043317, 0.000000]" in t


def test_scenario_text_nan_rows_and_direct_qk():
    t = report.scenario_text(builtin("padding-nan"))
    assert "NaN rows: t1 mat" in t and "[nan, nan, nan, nan, nan]" in t
    h = report.scenario_text(builtin("lesson-handcrafted"))
    assert "params: n/a" in h and "S = c * Q K^T / sqrt(d_k)" in h
    u = report.scenario_text(builtin("lesson-pipeline").with_(scaled=False))
    assert "S = c * Q K^T (unscaled) =" in u


def test_scenario_json_fields_and_nulls():
    d = json.loads(report_json.scenario_json(builtin("padding-nan"), "padding-nan"))
    for key in (
        "tokens",
        "key_tokens",
        "Q",
        "K",
        "V",
        "S",
        "mask",
        "A",
        "O",
        "row_entropy_bits",
        "effective_tokens",
        "rank",
        "params_qkv",
        "nan_rows",
        "settings",
    ):
        assert key in d, key
    assert set(d["rank"]) >= {"S", "Q", "K"}
    assert d["nan_rows"] == [1] and d["A"][0] == [None] * 5 and d["row_entropy_bits"][0] is None
    assert d["mask"][0] == [None] * 5 and d["blocked"][0] == [True] * 5
    assert d["settings"] == {
        "c": 1.0,
        "scaled": True,
        "scale": 0.5,
        "mask": "causal",
        "window": None,
        "fill": "-inf",
        "dtype": "float64",
        "padding": [1],
    }
    assert d["params_qkv"] == 72 and d["A"][4][3] == pytest.approx(0.870049, abs=1e-6)


def test_json_never_has_nan_tokens():
    for name in ("padding-nan", "float16-overflow"):
        txt = report_json.scenario_json(builtin(name))
        assert not re.search(r"[:\[,]\s*(NaN|-?Infinity)\b", txt)
        json.loads(txt, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    f16 = json.loads(report_json.scenario_json(builtin("float16-overflow")))
    assert f16["mask"][0][1] is None and f16["settings"]["dtype"] == "float16"


# -- the whole lesson as JSON, and the experiments --------------------------------------
@pytest.fixture  # per test, so that mutation testing maps every test that reads it to the report code
def lesson():
    return json.loads(report_json.lesson_json())


def test_lesson_json(lesson):
    assert set(lesson["scenarios"]) == {"lesson-handcrafted", "lesson-pipeline"}
    hand, pipe = lesson["scenarios"]["lesson-handcrafted"], lesson["scenarios"]["lesson-pipeline"]
    assert np.round(hand["A"][3], 6).tolist() == [0.426933, 0.15706, 0.15706, 0.258948, 0.0]
    assert np.round(pipe["O"][4], 6).tolist() == [0.465255, 0.046327, 0.023164, 0.465255]
    assert (pipe["rank"]["S"], pipe["rank"]["Q"], pipe["rank"]["K"]) == (2, 2, 4)
    assert lesson["nadaraya_watson_diff"] < 1e-12 and lesson["box_kernel_diff"] == 0
    assert lesson["params_qkv"] == 72 and lesson["max_abs_O1_minus_V1"] == 0
    assert "NumPy" in lesson["rng_note"]


def test_lesson_json_experiments(lesson):
    """The JSON's seeded numbers, each recomputed from default_rng's draws."""
    assert [v["d_k"] for v in lesson["variance"]] == [4, 64, 512]
    for j, v in enumerate(lesson["variance"]):
        assert set(v) == {"d_k", "var", "ratio"} and abs(v["ratio"] - 1) < 0.1
        dots = ref.dots(v["d_k"], 5000, 8 + j)
        assert v["var"] == pytest.approx(float(np.mean(dots**2)), rel=1e-12)
        assert v["ratio"] == pytest.approx(float(np.mean(dots**2)) / v["d_k"], rel=1e-12)
    sat = lesson["saturation"]
    for key, row in zip(("unscaled", "scaled"), ref.saturation_rows(512, 8, 8)):
        assert sat[key]["max"] == pytest.approx(max(row), rel=1e-9)
        assert sat[key]["H"] == pytest.approx(ref.entropy_bits(row), rel=1e-9, abs=1e-15)
    assert sat["log2_T"] == 3.0
    assert sat["unscaled"]["max"] > 0.99 and sat["scaled"]["H"] > 1
    assert len(lesson["sweep"]) == 30 and set(lesson["sweep"][0]) == {"c", "H"}
    s = ref.sweep_row(8, 16, 16)
    for i, point in enumerate(lesson["sweep"]):
        c = 0.1 + (3.0 - 0.1) * i / 29  # linspace(0.1, 3.0, 30)
        assert point["c"] == pytest.approx(c, rel=1e-12)
        assert point["H"] == pytest.approx(
            ref.entropy_bits(ref.softmax_visible([c * v for v in s], [True] * 8)), rel=1e-9
        )
    for point, c in zip(lesson["entropy_at_c"], (0.1, 1.0, 3.0)):
        assert point["c"] == c
        assert point["H"] == pytest.approx(
            ref.entropy_bits(ref.softmax_visible([c * v for v in s], [True] * 8)), rel=1e-9
        )


@pytest.mark.parametrize("seed", [8, 9, 10])
def test_variance_ratio_within_10_percent(seed):
    for v in experiments.variance(n=5000, seed=seed):
        assert abs(v["ratio"] - 1) < 0.1, v
        assert v["var"] == pytest.approx(v["ratio"] * v["d_k"])


@pytest.mark.parametrize("seed", [8, 9, 10])
def test_saturation(seed):
    sat = experiments.saturation(seed=seed)
    assert sat["unscaled"]["max"] > 0.99 and sat["unscaled"]["H"] < 0.1
    assert sat["scaled"]["H"] > 1 and sat["scaled"]["max"] < sat["unscaled"]["max"]


@pytest.mark.parametrize("seed", [16, 17, 18])
def test_sweep_entropy_strictly_decreasing(seed):
    H = [p["H"] for p in experiments.scale_sweep(seed=seed)]
    assert len(H) == 30 and all(a > b for a, b in itertools.pairwise(H))
    assert H[0] <= 3.0
    np.testing.assert_allclose(experiments.entropies_at((0.1, 3.0), seed=seed), [H[0], H[-1]], rtol=1e-12)

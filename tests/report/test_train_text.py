"""report.train_text word for word from run and comparison dicts made here (no training), written
to kill the mutants of report/train_text.py (scripts/mutation.sh): the task line, the curve's
evenly spaced rows with the last included, the figures, the comparison table and its footer, and
JSON with non-finite numbers as null."""

from __future__ import annotations

import json

import numpy as np

from attn_tui.report import train_text as tt

TASK = (
    "task assoc-recall: 8 keys from 16 one-hot symbols, 4 queries each repeating one key; "
    "the head must put its weight on the matching key (seed 3)"
)


def config(**kw):
    return {"task": "assoc-recall", "d_k": 16, "scaled": True, "steps": 190, "lr": 0.5, "seed": 3, "batch": 32,
            "optimizer": "sgd", "log_every": 10, "eval_size": 256, "target_loss": 0.05} | kw  # fmt: skip


def run_dict(n=20, **kw):
    i = np.arange(n)
    return {
        "config": config(**kw),
        "step": (10 * i).tolist(),
        "loss": (1 / (i + 1)).tolist(),
        "accuracy": (i / 20).tolist(),
        "mean_row_entropy_bits": (3 - 0.1 * i).tolist(),
        "mean_p_one_minus_p_curve": (0.2 - 0.01 * i).tolist(),
        "final_loss": 0.0123456,
        "final_accuracy": 0.96875,
        "steps_to_target": 120,
        "target_loss": 0.05,
        "initial_mean_row_entropy_bits": 2.99951,
        "mean_p_one_minus_p": 0.123456,
    }


def test_run_text_line_by_line():
    lines = tt.run_text(run_dict()).split("\n")
    assert lines[:4] == [
        TASK,
        "head: d_k = 16, scores 1/√d_k; sgd lr 0.5, batch 32, 190 steps",
        "",
        "  step       loss  accuracy  H bits   p(1−p)",
    ]
    assert lines[4] == "     0    1.00000     0.000   3.000   0.2000"
    assert lines[15] == "   190    0.05000     0.950   1.100   0.0100"
    picks = np.linspace(0, 19, 12).round().astype(int)  # 12 rows evenly spaced, the first and the last
    assert [int(line.split()[0]) for line in lines[4:16]] == (10 * picks).tolist()
    assert lines[16:] == [
        "",
        "final loss 0.01235, final accuracy 0.969",
        "steps to loss ≤ 0.05: 120",
        "at step 0: mean row entropy 3.000 bits, mean p(1−p) 0.1235",
        "",
    ]


def test_a_curve_of_twelve_prints_every_row_and_unscaled_never():
    r = run_dict(12, scaled=False, optimizer="adam", lr=0.01) | {"steps_to_target": None}
    lines = tt.run_text(r).split("\n")
    assert lines[1] == "head: d_k = 16, scores unscaled (c = 1); adam lr 0.01, batch 32, 190 steps"
    assert [int(line.split()[0]) for line in lines[4:16]] == list(range(0, 120, 10)) and lines[16] == ""
    assert "steps to loss ≤ 0.05: never" in lines
    assert tt.run_text(run_dict(1)).split("\n")[4:6] == ["     0    1.00000     0.000   3.000   0.2000", ""]


def test_comparison_table_footer_and_verdicts():
    rows = [
        {
            "d_k": 4,
            "scaled": run_dict(),
            "unscaled": run_dict(scaled=False) | {"steps_to_target": None},
            "verdict": "v4",
        },
        {"d_k": 64, "scaled": run_dict(), "unscaled": run_dict(scaled=False), "verdict": "v64"},
    ]
    assert tt.compare_rows_text(rows).split("\n") == [
        TASK,
        "",
        "d_k  scores    steps to target  H at step 0  p(1−p) at 0  final acc  final loss",
        "4    scaled                120        3.000       0.1235      0.969     0.01235",
        "4    unscaled            never        3.000       0.1235      0.969     0.01235",
        "64   scaled                120        3.000       0.1235      0.969     0.01235",
        "64   unscaled              120        3.000       0.1235      0.969     0.01235",
        "",
        "same task, initialisation, batches and learning rate (sgd lr 0.5, 190 steps, seed 3); target loss 0.05; "
        "H in bits (of log₂ 8 = 3)",
        "",
        "v4",
        "v64",
        "",
    ]


def test_json_writes_non_finite_numbers_as_null_at_any_depth():
    obj = {"a": float("nan"), "b": [1.5, float("inf"), {"c": -float("inf"), "d": 2}], "e": "x", "f": None}
    text = tt.as_json(obj)
    assert text.endswith("}\n") and text.startswith('{\n  "a": null')  # indented by 2
    assert json.loads(text) == {"a": None, "b": [1.5, None, {"c": None, "d": 2}], "e": "x", "f": None}

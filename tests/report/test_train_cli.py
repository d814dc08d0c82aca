"""`attn-tui train`: the JSON and text a run prints, the comparison, and bad input (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from attn_tui.cli import main
from attn_tui.core.train import compare
from attn_tui.core.train.run import Config, run

FIELDS = (
    "loss",
    "accuracy",
    "final_loss",
    "final_accuracy",
    "steps_to_target",
    "initial_mean_row_entropy_bits",
    "mean_p_one_minus_p",
)


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_run_is_the_core_run_and_deterministic(capsys):
    code, out, err = cli(capsys, "train", "--d-k", "8", "--steps", "60", "--lr", "0.4", "--seed", "3", "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    want = run(Config(d_k=8, steps=60, lr=0.4, seed=3))
    assert all(f in got for f in FIELDS)
    assert got["loss"] == pytest.approx(want["loss"], rel=1e-15) and got["final_accuracy"] == want["final_accuracy"]
    assert got["steps_to_target"] == want["steps_to_target"]
    assert cli(capsys, "train", "--d-k", "8", "--steps", "60", "--lr", "0.4", "--seed", "3", "--json")[1] == out


def test_unscaled_flag_and_text(capsys):
    code, out, _ = cli(capsys, "train", "--unscaled", "--d-k", "4", "--steps", "30")
    r = run(Config(d_k=4, steps=30, scaled=False))
    assert code == 0
    assert "unscaled (c = 1)" in out
    assert f"final loss {r['final_loss']:.5f}, final accuracy {r['final_accuracy']:.3f}" in out
    assert f"mean p(1−p) {r['mean_p_one_minus_p']:.4f}" in out


def test_compare_json_has_both_runs(capsys):
    code, out, _ = cli(capsys, "train", "--compare", "--d-k", "32", "--steps", "40", "--json")
    got = json.loads(out)
    want = compare.compare(Config(d_k=32, steps=40))
    assert code == 0 and set(got) >= {"scaled", "unscaled"}
    for name in ("scaled", "unscaled"):
        assert all(f in got[name] for f in FIELDS)
        assert got[name]["final_loss"] == want[name]["final_loss"]
        assert got[name]["config"]["scaled"] == (name == "scaled")
    assert got["verdict"] == compare.verdict(32, want["scaled"], want["unscaled"])


def test_compare_text_table(capsys, monkeypatch):
    code, out, _ = cli(capsys, "train", "--compare", "--d-k", "4", "--steps", "30")
    rows = compare.compare_all(Config(d_k=4, steps=30), (4,))
    assert code == 0
    assert rows[0]["verdict"] in out
    s = rows[0]["scaled"]
    assert f"{s['initial_mean_row_entropy_bits']:>11.3f}" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--d-k", "0"], "--d-k"),
        (["--lr", "-1"], "--lr"),
        (["--steps", "abc"], "--steps"),
        (["--steps", "0"], "--steps"),
        (["--lr", "inf"], "--lr"),
        (["--seed", "-1"], "--seed"),
        (["--task", "nope"], "--task"),
        (["--d-k", "100000"], "--d-k"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv, words):
    code, out, err = cli(capsys, "train", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err


def test_train_never_loads_the_ui():
    code = (
        "import sys; from attn_tui.cli import main; main(['train', '--steps', '5', '--json']); "
        "print('UI', [m for m in ('textual', 'rich') if m in sys.modules], file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "UI []" in done.stderr


def test_the_readme_table_is_what_compare_measures():
    """README's table is the output of `attn-tui train --compare` (a figure; this keeps it true)."""
    from pathlib import Path

    from attn_tui.report.train_text import compare_table

    readme = Path(__file__).resolve().parents[2] / "README.md"
    table = compare_table(compare.compare_all(Config(steps=compare.COMPARE_STEPS)))
    assert table.strip() in readme.read_text(encoding="utf-8")

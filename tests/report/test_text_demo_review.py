"""text-demo on the command line, as a new user met it (review of 5 Dec; its numbers: test_text_demo_cli.py):
a head's report says the model's d_model and the head's projections and keeps each token's own space, a
name that does not exist is said
so whatever the flags, a rollout's refusal suggests a query that is valid for that text, and a text
longer than the model was trained on gets a note on stderr."""

from __future__ import annotations

import json

import pytest

from attn_tui.cli import main
from attn_tui.core.models import MODELS
from tests.report.test_heads_cli import assert_bad_input, attn


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def text_model():
    return MODELS["text-demo"].model()


def test_a_heads_report_says_the_models_d_model_and_the_heads_projections(capsys, text_model):
    code, out, err = cli(
        capsys, "report", "--scenario", "text-demo", "--text", "The cat sat.", "--layer", "1", "--head", "0"
    )
    assert code == 0, err
    _, _, d, d_k = text_model.W_Q.shape
    d_v = text_model.W_V.shape[3]
    assert f"d_model = {d}   d_k = {d_k}   d_v = {d_v}" in out and "d_model = -" not in out
    assert f"params d_model * (2 d_k + d_v) = {d * (2 * d_k + d_v)} (this head's W_Q, W_K, W_V" in out
    assert "given directly" not in out
    assert "tokens: t1 'The', t2 ' c', t3 'at', t4 ' s', t5 'at', t6 '.'" in out  # " c" keeps its space
    code, out, err = cli(
        capsys, "report", "--scenario", "text-demo", "--text", "The cat sat.", "--layer", "1", "--head", "0", "--json"
    )
    doc = json.loads(out)
    assert doc["shape"]["d_model"] == d and doc["params_qkv"] == d * (2 * d_k + d_v)
    assert doc["params_with_W_O"] == d * (2 * d_k + d_v) + d_v * d and doc["tokens"][1] == " c"


def test_the_summary_of_a_longer_text_says_them_too(capsys, text_model):
    text = " ".join(["the cat"] * 40)  # 120 tokens: above the report's 64, the bounded summary
    code, out, err = cli(capsys, "report", "--scenario", "text-demo", "--text", text, "--layer", "0", "--head", "1")
    assert code == 0 and "Summary:" in out, err
    assert f"d_model = {text_model.W_Q.shape[2]}" in out and "t2 ' c'" in out and "given directly" not in out


@pytest.mark.parametrize(
    "argv",
    [
        ("heads", "nosuch", "--text", "hi"),
        ("heads", "nosuch", "--tokens", "a b"),
        ("report", "--scenario", "nosuch", "--text", "hi", "--layer", "0", "--head", "0"),
    ],
)
def test_a_name_that_is_not_there_is_said_not_to_be(argv):
    res = attn(*argv)
    assert_bad_input(res, "nosuch")
    assert "holds fixed Q, K, V" not in res.stderr and "goes with a multi-head built-in (" not in res.stderr
    assert "no such file" in res.stderr or "not a multi-head built-in" in res.stderr


def test_a_file_given_a_text_is_still_refused_for_its_fixed_heads(tmp_path):
    from attn_tui.core.heads.door import open_heads
    from tests.core.headtools import save_source

    path = save_source(open_heads("induction-demo"), tmp_path / "demo.npz")
    assert_bad_input(attn("heads", str(path), "--text", "hi"), "holds fixed Q, K, V")


@pytest.mark.parametrize(("text", "T"), [("hi", 1), ("hi there", 2)])
def test_a_rollout_query_out_of_range_suggests_a_valid_one(capsys, text, T):
    code, out, err = cli(capsys, "heads", "text-demo", "--text", text, "--rollout", "--query", "0")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    suggested = err.split("--query ")[-1].strip()
    rows = [int(r) for r in suggested.split(",")]
    assert all(1 <= r <= T for r in rows) and len(set(rows)) == len(rows), err  # valid, no row twice
    assert cli(capsys, "heads", "text-demo", "--text", text, "--rollout", "--query", suggested)[0] == 0


def test_a_text_past_the_training_length_gets_a_note(capsys):
    most = MODELS["text-demo"].trained_up_to()
    long = " ".join(["the"] * (most + 8))
    for argv in (
        ("heads", "text-demo", "--layer", "0"),
        ("report", "--scenario", "text-demo", "--layer", "0", "--head", "0"),
    ):
        code, out, err = cli(capsys, *argv, "--text", long)
        assert code == 0 and out, err
        assert f"never trained on a text longer than {most} tokens" in err and len(err.strip().splitlines()) == 1
    code, out, err = cli(capsys, "heads", "text-demo", "--layer", "0", "--text", " ".join(["the"] * (most - 8)))
    assert code == 0 and "never trained" not in err

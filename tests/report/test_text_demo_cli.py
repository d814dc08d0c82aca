"""text-demo headless (issue 49): `heads text-demo --text "…" [--layer L] [--query t] [--json]` and
`report --scenario text-demo --text "…" --layer L --head H`, their numbers against the model's own Run;
a text the model cannot read is one line naming the flag, exit 2. The shipped model when it ships,
else random weights of its format."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui import cli
from tests.core.textmodels import text_demo_model

TEXT = "The cat sat on the mat. The cat sat on the mat."


@pytest.fixture
def model(monkeypatch, tmp_path):
    return text_demo_model(monkeypatch, tmp_path)


def test_heads_reads_every_head_of_the_text(capsys, model):
    run = model.forward(model.tokenizer.encode(TEXT).ids)
    t = run.T
    assert cli.main(["heads", "text-demo", "--text", TEXT, "--query", str(t), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["heads"]) == model.n_layers * model.n_heads
    tol = 64 * np.finfo(np.float64).eps
    for h in d["heads"]:
        A = run.A[h["layer"], h["head"], t - 1]
        top = h["query"]["top"][0]
        assert top["position"] == int(np.argmax(A)) + 1 and abs(top["weight"] - A.max()) <= tol
    assert cli.main(["heads", "text-demo", "--text", TEXT, "--json"]) == 0  # the readings: without --query
    for h in json.loads(capsys.readouterr().out)["heads"]:
        prev = np.mean([run.A[h["layer"], h["head"], i, i - 1] for i in range(1, t)])
        assert abs(h["prev_token"] - prev) <= tol


def test_heads_one_layer_as_text(capsys, model):
    assert cli.main(["heads", "text-demo", "--text", TEXT, "--layer", "1"]) == 0
    out = capsys.readouterr().out
    assert f"text-demo on {TEXT!r}" in out and "layer" in out


def test_report_one_head_is_its_run(capsys, model):
    assert cli.main(["report", "--scenario", "text-demo", "--text", TEXT, "--layer", "1", "--head", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    run = model.forward(model.tokenizer.encode(TEXT).ids)
    np.testing.assert_allclose(np.array(d["A"], dtype=float), run.A[1, 2], rtol=0, atol=64 * np.finfo(np.float64).eps)
    assert len(d["tokens"]) == run.T


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["heads", "text-demo", "--text", "  "], "--text: no text"),
        (["heads", "text-demo", "--text", "word " * 1100], "--text: "),
        (["heads", "text-demo", "--text", "a", "--tokens", "a"], "give one"),
        (["report", "--scenario", "lesson-pipeline", "--text", "a"], "--text goes with a multi-head built-in"),
        (["report", "--scenario", "text-demo", "--text", "", "--layer", "0", "--head", "0"], "--text: no text"),
        (["--scenario", "text-demo", "--text", " "], "--text: no text"),
        (["--text", "The cat"], "--text goes with a multi-head built-in"),
    ],
)
def test_a_text_it_cannot_read_is_one_line_exit_2(capsys, model, argv, words):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_a_long_texts_title_is_cut_inside_its_quotes_and_says_so(capsys, model):
    """Review: the help's title of a 400-token text stopped mid-word, with no closing quote and no "…"."""
    from attn_tui.core.heads.demo import model_source
    from attn_tui.core.heads.source import head_scenario
    from attn_tui.core.models import MODELS

    long = " ".join([TEXT] * 20)
    src = model_source(MODELS["text-demo"], long)
    assert src.title.startswith(f"text-demo on {long[:100]!r}"[:-1]) and src.title.endswith("…'")
    assert len(src.title) <= 200
    title = head_scenario(src, 1, 2).title
    assert title.endswith("…': layer 1, head 2 (counted from 0)"), title
    assert cli.main(["heads", "text-demo", "--text", long, "--layer", "1"]) == 0
    assert src.title in capsys.readouterr().out


def test_a_text_that_is_not_utf8_names_its_byte(capsys, model):
    """Review: an argument of bytes that are not UTF-8 reached the tokenizer (a TypeError's words)."""
    text = b"ab\xffcd".decode("utf-8", "surrogateescape")  # what Python makes of such an argument
    assert cli.main(["heads", "text-demo", "--text", text]) == 2
    assert "--text: not UTF-8 text (byte 0xFF at character 3)" in capsys.readouterr().err
    assert cli.main(["report", "--scenario", "text-demo", "--text", text, "--layer", "0", "--head", "0"]) == 2
    assert "not UTF-8 text (byte 0xFF at character 3)" in capsys.readouterr().err

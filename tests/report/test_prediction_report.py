"""`attn-tui heads NAME|FILE --query t`: the model's prediction after t and each head's share of the top
token's logit, checked against the demo's forward written again in the tests (tests/core/demo_forward.py),
not the command's own path; a file with no model says why it has none, in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attn_tui import cli
from attn_tui.core.heads.door import open_heads
from tests.core.demo_forward import REPEAT, own_forward
from tests.core.headtools import save_source


def _run(capsys, *argv) -> str:
    assert cli.main(["heads", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("t", [2, 11, 16])
def test_json_prediction_is_the_models_own(capsys, t):
    logits, direct, writes, W_U = own_forward(REPEAT)
    row = logits[t - 1]
    p = np.exp(row - row.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")[:5]
    tok = int(order[0])
    d = json.loads(_run(capsys, "induction-demo", "--tokens", REPEAT, "--query", str(t), "--json"))["prediction"]
    assert [x["token"] for x in d["top"]] == [chr(ord("a") + i) for i in order]
    np.testing.assert_allclose([x["p"] for x in d["top"]], p[order], rtol=1e-12, atol=1e-15)
    assert d["token"] == chr(ord("a") + tok)
    assert {(h["layer"], h["head"]) for h in d["by_head"]} == set(writes)
    for h in d["by_head"]:
        want = float(writes[h["layer"], h["head"]][t - 1] @ W_U[:, tok])
        assert h["logit"] == pytest.approx(want, abs=1e-12)
    assert d["direct"] == pytest.approx(float(direct[t - 1] @ W_U[:, tok]), abs=1e-12)
    assert abs(d["direct"] + sum(h["logit"] for h in d["by_head"]) - row[tok]) < 1e-9
    assert [h["logit"] for h in d["by_head"]] == sorted((h["logit"] for h in d["by_head"]), reverse=True)


def test_text_has_a_line_for_the_top_each_head_and_the_direct_path(capsys):
    logits = own_forward(REPEAT)[0][10]
    out = _run(capsys, "induction-demo", "--tokens", REPEAT, "--query", "11").splitlines()
    start = next(i for i, line in enumerate(out) if line.startswith("what the model predicts after t11 ('e')"))
    assert "'r' 1.000" in out[start]  # after t11 'e' the repeat continues with 'r'
    parts = out[start + 2 : start + 2 + 9]
    assert parts[0].split()[1:3] == ["L1.H2,", "looks"] and "t4 'r' (after copy)" in parts[0]
    assert sum("embedding + position" in line for line in parts) == 1
    assert sum(" L" in line and ".H" in line for line in parts) == 8
    shares = [float(line.split()[0]) for line in parts]
    assert shares == sorted(shares, reverse=True)
    logit = f"{logits.max():.3f}"
    assert out[start + 11] == f"  sum of the parts {logit} (the logit {logit})"


def test_a_file_with_no_model_says_why_in_one_line(capsys, tmp_path):
    path = save_source(open_heads("induction-demo", REPEAT), tmp_path / "heads.safetensors")
    d = json.loads(_run(capsys, str(path), "--query", "5", "--json"))
    assert d["prediction"] is None
    out = _run(capsys, str(path), "--query", "5")
    assert out.rstrip().splitlines()[-1].startswith("no prediction here: this file holds the heads' Q, K, V")
    assert "what the model predicts" not in out


def test_without_query_there_is_no_prediction(capsys):
    d = json.loads(_run(capsys, "induction-demo", "--json"))
    assert "prediction" not in d


def test_the_worked_example_in_heads_md_is_the_programs_output(capsys):
    """docs/HEADS.md (What the model predicts): its text block is what the command prints now, and the
    figures its prose names are the tests' own forward's (layer 1's sum, the logit, the direct share)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "HEADS.md").read_text(encoding="utf-8")
    section = page.split("## What the model predicts, and which heads put it there")[1].split("\n## ")[0]
    block = section.split("```text\n")[1].split("```")[0].rstrip("\n").splitlines()
    out = _run(capsys, "induction-demo", "--tokens", REPEAT, "--query", "11").splitlines()
    assert block == out[len(out) - len(block) :] and block[0].startswith("what the model predicts after t11")
    logits, direct, writes, W_U = own_forward(REPEAT)
    tok = int(np.argmax(logits[10]))
    layer1 = sum(float(o[10] @ W_U[:, tok]) for (ly, _), o in writes.items() if ly == 1)
    assert f"give it +{layer1:.3f} between them" in section
    assert f"whole logit of\n{logits[10, tok]:.3f}" in section
    assert f"embedding's −{-float(direct[10] @ W_U[:, tok]):.3f}" in section

"""Issue 52 item 5: `heads FILE --query t` reads one row of A a head, a head at a time, and prints it;
it computed every head's whole readings first (hours on a 64 x 64-head, 16,384-token file) and
then printed one row per head. The file here is sparse (8 layers x 8 heads x 16,384 tokens, a few
KB on disk); a head's readings are refused outright, so reaching one fails the test at once."""

from __future__ import annotations

import json

import pytest

from attn_tui import cli
from attn_tui.core.heads import source
from attn_tui.report import heads_text
from tests.core.badheads import sparse_heads


@pytest.fixture
def no_readings(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a head's whole readings were computed for --query")

    monkeypatch.setattr(source, "head_readings_of", refuse)
    monkeypatch.setattr(heads_text, "all_readings", refuse)


def test_query_prints_a_row_a_head_without_the_readings(tmp_path, capsys, no_readings):
    path = sparse_heads(tmp_path / "long.safetensors", L=8, H=8, T=16384)
    assert cli.main(["heads", str(path), "--query", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("  L")]
    assert [r[0] for r in rows] == [f"L{ly}.H{h}" for ly in range(8) for h in range(8)]
    assert all(r[1:] == ["t1", "'t1'", "1.000"] for r in rows)  # query t1 sees itself alone
    assert "strongest" not in out and "H mean" not in out  # no readings, no verdicts on them


def test_query_json_gives_each_head_its_row(tmp_path, capsys, no_readings):
    path = sparse_heads(tmp_path / "long.safetensors", L=2, H=4, T=16384)
    assert cli.main(["heads", str(path), "--query", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [(h["layer"], h["head"]) for h in d["heads"]] == [(ly, h) for ly in range(2) for h in range(4)]
    for h in d["heads"]:  # Q = K = 0: query t3 spreads evenly over t1..t3
        assert [k["position"] for k in h["query"]["top"]] == [1, 2, 3]
        assert all(abs(k["weight"] - 1 / 3) <= 1e-15 for k in h["query"]["top"])

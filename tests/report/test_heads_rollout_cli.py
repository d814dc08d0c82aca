"""`attn-tui heads NAME|FILE --rollout [--query ROWS] [--json]` end to end: the JSON's R is the core's
(itself checked against a loop over layers in tests/core/test_heads_rollout.py), the rows asked for
are R's rows, above 512 tokens only --query, and bad input in one line."""

from __future__ import annotations

import json

import numpy as np

from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.rollout import rollout
from tests.report.test_heads_cli import assert_bad_input, attn

TOKENS = "a b c d e f g h a b c d e f g h"


def test_rollout_json_is_r_and_query_rows_are_its_rows():
    res = attn("heads", "induction-demo", "--tokens", TOKENS, "--rollout", "--json")
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    R = rollout(open_heads("induction-demo", TOKENS))
    assert d["rows"] == list(range(1, 17)) and d["T"] == 16
    np.testing.assert_array_equal(np.array(d["rollout"]), R)  # JSON floats round-trip exactly
    res = attn("heads", "induction-demo", "--tokens", TOKENS, "--rollout", "--query", "16,3", "--json")
    d = json.loads(res.stdout)
    assert d["rows"] == [16, 3]
    np.testing.assert_allclose(np.array(d["rollout"]), R[[15, 2]], rtol=0, atol=1e-15)


def test_rollout_text_names_each_rows_largest_sources():
    res = attn("heads", "induction-demo", "--tokens", TOKENS, "--rollout", "--query", "16")
    assert res.returncode == 0, res.stderr
    R = rollout(open_heads("induction-demo", TOKENS))
    j = int(np.argmax(R[15]))
    assert f"t16 h ← t{j + 1} {TOKENS.split()[j]} {R[15, j]:.3f}" in res.stdout


def test_long_files_take_query_rows_and_bad_input_is_one_line(tmp_path):
    T = 520
    rng = np.random.default_rng(1)
    path = save_heads(tmp_path / "long.npz", *(rng.normal(size=(2, 1, T, 2)) for _ in range(3)), mask="causal")
    assert_bad_input(attn("heads", str(path), "--rollout"), "--rollout: 520 tokens", "--query")
    res = attn("heads", str(path), "--rollout", "--query", "520", "--json")
    assert res.returncode == 0, res.stderr
    row = np.array(json.loads(res.stdout)["rollout"])
    assert row.shape == (1, T) and abs(row.sum() - 1) < 1e-12
    assert_bad_input(attn("heads", str(path), "--rollout", "--query", "0"), "--query: '0' is not a position")
    assert_bad_input(attn("heads", str(path), "--query", "5,6"), "--query: '5,6' is not a query position", "--rollout")

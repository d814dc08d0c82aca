"""`attn-tui heads NAME|FILE [--layer L] --query t [--json]`: where one query looks in every head,
checked against A computed from Q and K here (a loop over keys), not against the command's own path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui import cli
from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_write import save_heads

TOKENS = "q w e r t q w e r t"


def _row(src, layer, head, t):
    """Row t (0-based) of A: softmax over keys 0..t of scale · q_t·k_j, one key at a time."""
    q = src.read("Q", layer, head)[t].astype(np.float64)
    K = src.read("K", layer, src.kv_head[head]).astype(np.float64)
    s = np.array([src.scales[layer] * float(q @ K[j]) for j in range(t + 1)])
    e = np.exp(s - s.max())
    return e / e.sum()


def _json(capsys, *argv):
    assert cli.main(["heads", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("t", [1, 7, 10])
def test_every_heads_query_is_its_row_of_A(capsys, t):
    src = open_heads("induction-demo", TOKENS)
    d = _json(capsys, "induction-demo", "--tokens", TOKENS, "--query", str(t))
    assert len(d["heads"]) == src.n_layers * src.n_heads
    tol = 64 * np.finfo(np.float64).eps
    for h in d["heads"]:
        q = h["query"]
        A = _row(src, h["layer"], h["head"], t - 1)
        order = sorted(range(t), key=lambda j: (-A[j], j))[:5]
        assert q["position"] == t and [k["position"] for k in q["top"]] == [j + 1 for j in order]
        assert [k["token"] for k in q["top"]] == [TOKENS.split()[j] for j in order]  # raw tokens, no position
        assert np.allclose([k["weight"] for k in q["top"]], A[order], rtol=0, atol=tol)


def test_text_lists_each_head_and_one_layer_only(capsys):
    assert cli.main(["heads", "induction-demo", "--tokens", TOKENS, "--layer", "1", "--query", "7"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("  L")]
    assert [line.split()[0] for line in lines] == ["L1.H0", "L1.H1", "L1.H2", "L1.H3"]
    assert "where query t7 ('w') looks" in out
    # layer 1's induction heads read the token after the earlier "w": t3 'e'
    assert sum(line.split()[1:3] == ["t3", "'e'"] for line in lines) >= 2


@pytest.mark.parametrize("bad", ["0", "11", "-3", "x", "1,2"])
def test_a_query_that_is_not_there_is_one_line_exit_2(capsys, bad):
    assert cli.main(["heads", "induction-demo", "--tokens", TOKENS, "--query", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--query" in err


def test_a_4096_token_file(tmp_path, capsys):
    rng = np.random.default_rng(1)
    T, d = 4096, 8
    Q, K, V = (rng.standard_normal((1, 2, T, d)).astype(np.float32) for _ in range(3))
    path = save_heads(tmp_path / "long.npz", Q, K, V, tokens=[f"w{i % 50}" for i in range(T)], mask="causal")
    d_ = _json(capsys, str(path), "--query", str(T))
    src = open_heads(str(path))
    for h in d_["heads"]:
        A = _row(src, 0, h["head"], T - 1)
        j = int(np.argmax(A))
        assert h["query"]["top"][0]["position"] == j + 1
        assert abs(h["query"]["top"][0]["weight"] - A[j]) <= 1e-6  # float32 inputs, float64 softmax both sides


def test_the_pages_worked_example_is_what_the_model_computes():
    """docs/HEADS.md (Reading a head like text): t11 "e" on layer 1 head 2 reads t4 "r" at 0.994, and at
    t9 "q" layer 1's four heads read t2 "w" at 0.94-0.99: recomputed here, read back from the page."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "HEADS.md").read_text(encoding="utf-8")
    seq = "q w e r t y u i q w e r t y u i"
    src = open_heads("induction-demo", seq)
    A = _row(src, 1, 2, 10)
    j = int(np.argmax(A))
    assert (j, seq.split()[j]) == (3, "r") and f"t4 r {A[j]:.3f}" in page and f"({A[j]:.3f})" in page
    assert int(np.argmax(_row(src, 0, 0, 10))) == 9 and 'lights t10 "w"' in page
    best = [_row(src, 1, h, 8) for h in range(src.n_heads)]
    assert all(int(np.argmax(a)) == 1 for a in best)  # t2 "w", after the earlier "q"
    lo, hi = min(a[1] for a in best), max(a[1] for a in best)
    assert f"at {lo:.2f}–{hi:.2f}" in page

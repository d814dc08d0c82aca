"""`report --scenario S [--layer L --head H] --json`: A_value_weighted for every scenario, and
A_info_weighted for a head whose source holds W_O, each against a loop over keys written here."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np

from attn_tui.core.heads import open_heads

EPS = np.finfo(np.float64).eps


def report(*args):
    res = subprocess.run(
        [sys.executable, "-m", "attn_tui", "report", "--json", *args], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def loop(A, vectors):
    norms = [math.sqrt(sum(x * x for x in v)) for v in vectors]
    return [[None if a is None else a * n / max(norms) for a, n in zip(row, norms)] for row in A]


def times(V, W):
    return [[sum(v[a] * W[a][b] for a in range(len(W))) for b in range(len(W[0]))] for v in V]


def test_a_heads_report_has_both_weightings():
    d = report("--scenario", "induction-demo", "--layer", "1", "--head", "2")
    W = open_heads("induction-demo").read("W_O", 1).astype(np.float64).tolist()[16:24]  # head 2's d_v = 8 rows
    np.testing.assert_allclose(d["A_value_weighted"], loop(d["A"], d["V"]), rtol=0, atol=64 * EPS)
    np.testing.assert_allclose(d["A_info_weighted"], loop(d["A"], times(d["V"], W)), rtol=0, atol=64 * EPS)


def test_a_single_head_has_value_weighted_only():
    d = report("--scenario", "lesson-pipeline")
    assert "A_info_weighted" not in d
    A = [[np.nan if a is None else a for a in row] for row in d["A"]]
    got = np.array([[np.nan if a is None else a for a in row] for row in d["A_value_weighted"]])
    np.testing.assert_allclose(got, np.array(loop(A, d["V"]), dtype=float), rtol=0, atol=64 * EPS)

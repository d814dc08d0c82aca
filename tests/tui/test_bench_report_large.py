"""The `report` bench's floor (attn_tui/bench/report_large.py) does the report's work: its row
entropies are the core's for the same causal float32 scenario, and its report line says the ratio
against the faster floor."""

from __future__ import annotations

import numpy as np

from attn_tui.bench import report_large
from attn_tui.core.scenario import Scenario


def test_the_floor_computes_the_cores_entropies():
    rng = np.random.default_rng(32)
    Q, K, V = (rng.standard_normal((300, 16)).astype(np.float32) for _ in range(3))
    H = report_large._floor()(Q, K, V, block=64)
    assert H.dtype == np.float32
    want = Scenario(Q=Q, K=K, V=V, mask="causal", dtype="float32").run().H
    np.testing.assert_allclose(H, want, atol=300 * np.finfo(np.float32).eps * 8)


def test_the_ratio_is_against_the_faster_floor():
    r = {"T": 8, "repeats": 1, "load": [(1.0, 1.0, 1.0)], "cli": 3.0, "floor_cli": 4.0, "floor_cli_1t": 2.0,
         "summarise": 1.0, "summarise_1": 1.1, "summarise_cores": 0.9, "floor": 0.5, "floor_1t": 2.0,
         "floor_no_av": 0.4, "floor_no_av_1t": 0.8}  # fmt: skip
    lines = report_large.report(r)
    assert "python -c FLOOR FILE   2.00 s (1 thread; 4.00 s and 2.00 s)   1.50x (goal <= 1.5x)" in lines[1]
    assert "floor   0.50 s (default threads)   2.00x" in lines[2]
    assert "floor without A V (the summary computes no O)   0.40 s (default threads)   2.50x" in lines[3]
    assert "summarise() on 1 thread   1.10 s, on one per core   0.90 s" in lines[4]

"""The text curve of `attn-tui train` from real runs: every logged row while there are at most
CURVE_ROWS of them (`--steps 50` logs steps 0, 10, ..., 50: six rows, all printed), else
CURVE_ROWS rows evenly spaced with the first and the last. Rows and figures are read from the
run's own dict."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.train.run import Config, run
from attn_tui.report import train_text as tt


def curve(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[4 : lines.index("", 4)]


def row(r: dict, i: int) -> list[str]:
    return [
        str(r["step"][i]),
        f"{r['loss'][i]:.5f}",
        f"{r['accuracy'][i]:.3f}",
        f"{r['mean_row_entropy_bits'][i]:.3f}",
        f"{r['mean_p_one_minus_p_curve'][i]:.4f}",
    ]


@pytest.mark.parametrize(
    "steps, log_every",
    [(50, 10), (5, 10), (1, 1), (11, 1), (10, 1), (12, 1), (30, 1)],
)
def test_the_curve_prints_each_logged_row_up_to_its_limit_then_evenly_spaced(steps, log_every):
    r = run(Config(steps=steps, log_every=log_every, eval_size=16, batch=4))
    n = len(r["step"])
    assert r["step"][0] == 0 and r["step"][-1] == steps
    want = range(n) if n <= tt.CURVE_ROWS else np.linspace(0, n - 1, tt.CURVE_ROWS).round().astype(int)
    assert [line.split() for line in curve(tt.run_text(r))] == [row(r, int(i)) for i in want]


def test_steps_50_prints_steps_0_to_50():
    r = run(Config(steps=50, eval_size=16, batch=4))
    assert [line.split()[0] for line in curve(tt.run_text(r))] == [str(s) for s in range(0, 51, Config().log_every)]

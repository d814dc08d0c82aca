"""`heads --rollout` says how far it got on a terminal, as `heads` does ("heads read: 8 of 32"):
rollout reads every head of every layer, a minute at 16 heads x 4,096 tokens, and said nothing."""

from __future__ import annotations

import numpy as np

from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.rollout import rollout, rollout_rows
from tests.tui.ptyrun import PtyApp

LAYERS, HEADS = 4, 8


def heads_file(path, T: int):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((LAYERS, HEADS, T, 2))
    return save_heads(path, q, q, q, mask="causal")


def test_rollout_tells_the_heads_read_after_each_head(tmp_path):
    src = open_heads(str(heads_file(tmp_path / "h.npz", T=12)))
    want = [(k, HEADS * LAYERS) for k in range(1, HEADS * LAYERS + 1)]  # a head at a time (issue 52 item 3)
    for run in (lambda p: rollout(src, p), lambda p: rollout_rows(src, [3, 11], p)):
        told: list = []
        R = run(lambda done, total, told=told: told.append((done, total)))
        assert told == want
        assert np.allclose(R.sum(axis=1), 1.0)  # still R: each row a mixture of the input tokens
    # the same rows summed in another order: a few float64 roundings per layer and key apart
    tol = 4 * LAYERS * src.T * np.finfo(np.float64).eps
    np.testing.assert_allclose(rollout_rows(src, [3, 11]), rollout(src)[[3, 11]], rtol=0, atol=tol)


def test_heads_rollout_shows_a_progress_line_on_a_terminal_and_clears_it(tmp_path):
    path = heads_file(tmp_path / "long.npz", T=1024)
    with PtyApp(["heads", str(path), "--rollout", "--query", "1024"]) as app:
        app.shows("t1024")  # the row it printed
        assert app.exit_code() == 0
        raw = app.raw.decode(errors="replace")
        assert f"attn-tui heads --rollout: heads read: {HEADS} of {HEADS * LAYERS}" in raw, raw[:400]
        assert "\x1b[K" in raw  # the line gave way before the outcome

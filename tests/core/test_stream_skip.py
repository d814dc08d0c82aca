"""core.stream.row_stats leaves out key tiles the mask blocks for every row of the block when
they add exactly nothing (_open_tiles): the figures are bit for bit those of the full pass."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import stream
from attn_tui.core.scenario import Scenario

T = 300
TILE = 32  # small tiles, so a block of rows has many tiles on both sides of its diagonal
RNG = np.random.default_rng(11)


def figures(src, r0, r1, every: bool, monkeypatch):
    if every:
        monkeypatch.setattr(stream, "_open_tiles", lambda src, r0, r1, tile: stream._tiles(src.T_k, tile))
    st = stream.row_stats(src, r0, r1, top=0, tile=TILE)
    monkeypatch.undo()
    return st


CASES = [
    dict(mask="causal"),
    dict(mask="causal", fill="-inf"),
    dict(mask="causal", fill="min", dtype="float16"),
    dict(mask="causal", dtype="float32", c=3.0),
    dict(mask="window", window=40),
    dict(mask="window", window=40, padding=(1, 2, 3)),
    dict(mask="causal", padding=tuple(range(1, 40))),  # rows 1-39 see no key: that block is passed whole
    dict(mask="none", padding=(5, 6)),
]


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("r0", [0, 16, 144, 284])
def test_skipping_blocked_tiles_changes_no_bit(kw, r0, monkeypatch):
    s = Scenario(Q=RNG.standard_normal((T, 8)), K=RNG.standard_normal((T, 8)), V=RNG.standard_normal((T, 3)), **kw)
    src = stream.Source.of(s)
    r1 = min(T, r0 + 16)
    want, got = figures(src, r0, r1, True, monkeypatch), figures(src, r0, r1, False, monkeypatch)
    for name in ("H", "m", "l", "O", "max_blocked_w"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


def test_tiles_left_out_are_those_blocked_for_every_row():
    s = Scenario(Q=RNG.standard_normal((T, 4)), K=RNG.standard_normal((T, 4)), mask="window", window=40)
    src = stream.Source.of(s)
    kept = stream._open_tiles(src, 160, 176, TILE)
    # rows 160-175 see keys 121..175 (window 40): tiles [96, 128), [128, 160), [160, 192) only
    assert kept == [(96, 128), (128, 160), (160, 192)]
    causal = stream.Source.of(s.with_(mask="causal"))
    assert stream._open_tiles(causal, 0, 16, TILE) == [(0, 32)]
    assert len(list(stream._open_tiles(causal, 284, 300, TILE))) == len(list(stream._tiles(T, TILE)))


def test_nothing_is_left_out_when_a_blocked_weight_might_not_be_zero():
    Q = RNG.standard_normal((T, 4)) * 1e4  # scores up to ~1e8: e^(s − 1e9 − m) is still 0, but not by 800
    s = Scenario(Q=Q, K=RNG.standard_normal((T, 4)) * 1e4, mask="causal")
    src = stream.Source.of(s)
    q, k = src.norms
    assert float(src.fill) + 2 * abs(src.scale) * q * k >= -800
    assert len(list(stream._open_tiles(src, 0, 16, TILE))) == len(list(stream._tiles(T, TILE)))

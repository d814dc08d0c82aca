"""core.stream's key tiles and colour range. row_stats leaves out key tiles the mask blocks for
every row of the block when they add exactly nothing (_open_tiles): the figures are bit for bit
those of the full pass. Written to kill the mutants of core/stream.py (scripts/mutation.sh):
score_range once per pair of arrays for the last four pairs and (0, 0) without keys; _open_tiles
keeps a tile whose every cell is masked whenever it could carry weight (2b + fill >= -800), keeps
the first key of a window, and top keys still list masked keys past the open tiles. Expectations
from NumPy over the full matrices.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import stream, stream_source
from attn_tui.core.scenario import Scenario
from tests.core.reference_attention import blocked as ref_blocked

T = 300
TILE = 32  # small tiles, so a block of rows has many tiles on both sides of its diagonal
RNG = np.random.default_rng(11)


def figures(src, r0, r1, every: bool, monkeypatch):
    if every:
        monkeypatch.setattr(stream, "_open_tiles", lambda src, r0, r1, tile: stream.tile_ranges(src.T_k, tile))
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
    assert len(list(stream._open_tiles(causal, 284, 300, TILE))) == len(list(stream.tile_ranges(T, TILE)))


def test_nothing_is_left_out_when_a_blocked_weight_might_not_be_zero():
    Q = RNG.standard_normal((T, 4)) * 1e4  # scores up to ~1e8: e^(s − 1e9 − m) is still 0, but not by 800
    s = Scenario(Q=Q, K=RNG.standard_normal((T, 4)) * 1e4, mask="causal")
    src = stream.Source.of(s)
    q, k = src.norms
    assert float(src.fill) + 2 * abs(src.scale) * q * k >= -800
    assert len(list(stream._open_tiles(src, 0, 16, TILE))) == len(list(stream.tile_ranges(T, TILE)))


RNG_RANGE = np.random.default_rng(43)


def test_score_range_is_computed_once_per_pair_for_the_last_four():
    stream_source._RANGES.clear()
    Qs = [RNG_RANGE.standard_normal((5, 2)) for _ in range(5)]
    Ks = [RNG_RANGE.standard_normal((4, 2)) for _ in range(5)]
    P = Qs[0] @ Ks[0].T
    first = stream.score_range(Qs[0], Ks[0])
    assert first == (P.min(), P.max())
    others = [stream.score_range(Qs[0], Ks[1]), stream.score_range(Qs[1], Ks[0]), stream.score_range(Qs[2], Ks[2])]
    Qs[0][:] = 100.0  # changed in place: the pair's range is not computed again
    assert stream.score_range(Qs[0], Ks[0]) == first
    assert stream.score_range(Qs[1], Ks[0]) == others[1]
    fifth = stream.score_range(Qs[3], Ks[3])
    assert len(stream_source._RANGES) == 4
    Qs[3][:] = -100.0
    assert stream.score_range(Qs[3], Ks[3]) == fifth


def test_score_range_without_keys_is_zero():
    assert stream.score_range(np.ones((3, 2)), np.ones((0, 2))) == (0.0, 0.0)


def full_stats(s):
    """m, l, H (bits), from X = scale Q Kᵀ + fill on blocked cells."""
    B = np.array(ref_blocked(s.mask, s.T, s.T_k, s.padding, s.window))
    scale = s.c / np.sqrt(s.d_k) if s.scaled else s.c
    X = scale * (s.Q @ s.K.T) + np.where(B, -1e9, 0.0)
    m = X.max(axis=1)
    e = np.exp(X - m[:, None])
    A = e / e.sum(axis=1, keepdims=True)
    H = -np.where(A > 0, A * np.log2(np.where(A > 0, A, 1.0)), 0.0).sum(axis=1)
    return X, m, e.sum(axis=1), H


def test_a_masked_tile_that_can_carry_weight_is_kept():
    """Row 1 sees key 1 (score −5e8); key 2 is masked but scores +5e8, so S + fill = −5e8 too:
    2b + fill = 0, and the masked key holds half the weight."""
    s = Scenario(Q=[[5e4, 0.0], [0.0, 1.0]], K=[[-1e4, 0.0], [1e4, 0.0]], scaled=False)
    X, m, l, H = full_stats(s)
    st = stream.row_stats(stream.Source.of(s), 0, 1, top=0, tile=1)
    assert st.H.tolist() == [1.0] == H[:1].tolist() and st.l.tolist() == l[:1].tolist() == [2.0]


def test_the_first_key_of_a_window_is_kept():
    s = Scenario(Q=RNG_RANGE.standard_normal((6, 2)), K=RNG_RANGE.standard_normal((6, 2)), mask="window", window=3)
    X, m, l, H = full_stats(s)
    st = stream.row_stats(stream.Source.of(s), 4, 6, top=0, tile=1)  # rows 5, 6 see keys 3-5, 4-6
    np.testing.assert_allclose(st.H, H[4:6], rtol=1e-12)
    np.testing.assert_allclose(st.l, l[4:6], rtol=1e-12)


def test_top_keys_list_masked_keys_of_tiles_no_row_sees():
    """-1e9 is finite: a masked key keeps its place among the top keys (with weight 0), even in a
    tile that no row of the block sees."""
    s = Scenario(Q=RNG_RANGE.standard_normal((4, 2)), K=RNG_RANGE.standard_normal((4, 2)))
    X, m, l, H = full_stats(s)
    for sums in (False, True):
        st = stream.row_stats(stream.Source.of(s), 0, 1, top=3, sums=sums, tile=1)
        assert st.top[0].tolist() == np.argsort(-X[0], kind="stable")[:3].tolist()
        assert st.top_w[0].tolist() == [1.0, 0.0, 0.0]

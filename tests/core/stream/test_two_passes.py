"""Issue 32: core.stream.row_stats in two passes over a block's kept tiles (each row's max, then
e^(x − m) once), and what the summary asks of it. Each test fails on the online pass it replaced:
the row sums were a second round of products and exps, the masked tiles were passed over
whenever row sums were asked, and the summary asked top keys and O of every row."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attn_tui.core import stream, stream_source
from attn_tui.core.scenario import Scenario
from attn_tui.report import summary

RNG = np.random.default_rng(32)
T = 300
TILE = 32

CASES = [
    dict(mask="causal"),
    dict(mask="causal", fill="-inf", padding=(1,)),  # row 1 sees nothing: a NaN row
    dict(mask="causal", dtype="float16", fill="min"),
    dict(mask="window", window=40, dtype="float32", c=3.0),
    dict(mask="none", padding=(5, 6)),
]


def scenario(**kw):
    Q, K, V = RNG.standard_normal((T, 8)), RNG.standard_normal((T, 8)), RNG.standard_normal((T, 3))
    return Scenario(Q=Q, K=K, V=V, **kw)


def test_any_blocked_is_whether_blocked_has_a_true_cell():
    n = 9
    for mask, pad in itertools.product(["none", "causal", "window"], [(), (3,), (2, 8)]):
        s = Scenario(Q=np.ones((n, 1)), K=np.ones((n, 1)), mask=mask, window=3 if mask == "window" else None,
                     padding=pad)  # fmt: skip
        src = stream.Source.of(s)
        for r0, r1, c0, c1 in itertools.product(range(n + 1), repeat=4):
            if r0 <= r1 and c0 <= c1:
                want = bool(src.blocked(r0, r1, c0, c1).any())
                assert src.any_blocked(r0, r1, c0, c1) is want, (mask, pad, r0, r1, c0, c1)


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("r0", [0, 144, 284])
def test_row_sums_are_the_explorers_weights_summed_bit_for_bit(kw, r0):
    """The same e^(x − m) / l rounded to the dtype as core.stream.weights (the explorer's A), tile
    by tile over every tile of keys (a tile left out adds exactly 0)."""
    src = stream.Source.of(scenario(**kw))
    r1 = min(T, r0 + 16)
    st = stream.row_stats(src, r0, r1, top=0, sums=True, tile=TILE)
    want = np.zeros(r1 - r0)
    for c0, c1 in stream.tile_ranges(T, TILE):
        X = src.masked(r0, r1, c0, c1).astype(np.float64)
        want += stream.weights(X, st.m, st.l, src.dtype).sum(axis=1, dtype=np.float64)
    np.testing.assert_array_equal(st.row_sums, want)


@pytest.mark.parametrize("kw", CASES[:2])
def test_row_sums_cost_no_second_round_of_products(kw, monkeypatch):
    src = stream.Source.of(scenario(**kw))
    calls = []
    matmul = stream_source.matmul
    monkeypatch.setattr(stream_source, "matmul", lambda *a: calls.append(a) or matmul(*a))
    stream.row_stats(src, 128, 144, top=0, tile=TILE)
    without = len(calls)
    stream.row_stats(src, 128, 144, top=0, sums=True, tile=TILE)
    assert without > 0 and len(calls) == 2 * without


def test_row_sums_leave_out_the_tiles_the_mask_blocks(monkeypatch):
    """Rows 1-16 of a causal 300-token matrix see keys 1-16: one tile of 32 of the 10."""
    src = stream.Source.of(scenario(mask="causal"))
    seen = []
    masked_tile = stream._masked_tile
    monkeypatch.setattr(stream, "_masked_tile", lambda *a: seen.append(a[3:]) or masked_tile(*a))
    st = stream.row_stats(src, 0, 16, top=0, sums=True, tile=TILE)
    assert seen == [(0, 32)]
    np.testing.assert_allclose(st.row_sums, 1.0, atol=16 * np.finfo(np.float64).eps)


@pytest.mark.parametrize("kw", CASES)
def test_the_summary_asks_no_top_keys_nor_o_of_every_row_and_its_top_keys_are_the_full_passes(kw, monkeypatch):
    s = scenario(**kw)
    asked = []
    row_stats = stream.row_stats
    monkeypatch.setattr(stream, "row_stats", lambda src, *a, **k: asked.append((src.V, k)) or row_stats(src, *a, **k))
    f = summary.summarise(s, block=64)
    assert asked and all(V is None and k["top"] == 0 for V, k in asked)
    monkeypatch.undo()
    full = stream.row_stats(stream.Source.of(s), 0, T, top=summary.TOP)  # every tile, top keys of every row
    want = {
        t + 1: [(int(i), float(w)) for i, w in zip(full.top[t], full.top_w[t]) if i >= 0 and w > 0]
        for t in summary.sample_rows(s)
    }
    assert f["top_keys"] == want


def test_the_figures_do_not_depend_on_the_threads(monkeypatch):
    s = scenario(mask="window", window=40, dtype="float32", c=3.0)
    got = []
    for n in (1, 3):
        monkeypatch.setattr(summary, "workers", lambda n=n: n)
        got.append(summary.summarise(s, block=32))
    assert got[0] == got[1]


@pytest.mark.parametrize("kw", CASES)
def test_visible_keys_of_some_rows_are_those_rows_of_all(kw):
    src = stream.Source.of(scenario(**kw))
    every = src.visible_keys()
    assert every.shape == (T,)
    for r0, r1 in ((0, 1), (37, 90), (250, T), (T, T)):
        np.testing.assert_array_equal(src.visible_keys(r0, r1), every[r0:r1])

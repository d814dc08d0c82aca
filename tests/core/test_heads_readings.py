"""The per-head readings (core.heads.readings) against loops over a whole A, and a head's weights
from its source (row blocks) against the Scenario that head_scenario builds (the explorer's A)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core.attention import blocked_cells, softmax
from attn_tui.core.heads import readings
from attn_tui.core.heads.demo import memory_reader
from attn_tui.core.heads.readings import head_readings
from attn_tui.core.heads.source import HeadSource, head_readings_of, head_scenario

EPS = np.finfo(np.float64).eps


def naive(A, blocked, ids):
    """The readings with loops, 0-based t, i; None where a score is not defined."""
    T, T_k = len(A), len(A[0])
    rows = [t for t in range(T) if not any(math.isnan(x) for x in A[t])]
    H = [-sum(p * math.log2(p) for p in A[t] if p > 0) for t in rows]
    ceil = [math.log2(max(1, sum(not b for b in blocked[t]))) for t in rows]
    later = [t for t in rows if t >= 1]
    out = {"mean_entropy_bits": sum(H) / len(rows), "mean_ceiling_bits": sum(ceil) / len(rows)}
    out["first_token"] = sum(A[t][0] for t in later) / len(later)
    aligned = T == T_k
    out["prev_token"] = sum(A[t][t - 1] for t in later) / len(later) if aligned else None
    out["self_token"] = sum(A[t][t] for t in later) / len(later) if aligned else None
    hits, dups = [], []
    if aligned:
        for t in rows:
            earlier = [j for j in range(t) if ids[j] == ids[t]]
            if earlier:
                hits.append(sum(A[t][j + 1] for j in earlier))
                dups.append(sum(A[t][j] for j in earlier))
    out["induction"] = sum(hits) / len(hits) if hits else None
    out["duplicate_token"] = sum(dups) / len(dups) if dups else None
    return out


def random_head(seed, T, T_k, kind, window=None):
    rng = np.random.default_rng(seed)
    S = rng.normal(0, 2.0, (T, T_k))
    blocked = blocked_cells(kind, T, T_k, (), window)
    A = softmax(np.where(blocked, -np.inf, S)) if kind != "none" else softmax(S)
    ids = rng.integers(0, 4, T).tolist()  # 4 symbols: tokens repeat
    return A, blocked, ids


def check(r, want, T):
    for field, value in want.items():
        got = getattr(r, field)
        if value is None:
            assert got is None, field
        else:
            assert got == pytest.approx(value, rel=0, abs=8 * T * EPS * max(1.0, abs(value))), field


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("kind", "window"), [("causal", None), ("none", None), ("window", 3)])
def test_readings_equal_the_loops(seed, kind, window, monkeypatch):
    monkeypatch.setattr(readings, "ROWS", 3)  # several row blocks, a short last one
    T = 5 + seed
    A, blocked, ids = random_head(seed, T, T, kind, window)
    r = head_readings(lambda r0, r1: (A[r0:r1], ~blocked[r0:r1]), T, T, ids)
    check(r, naive(A.tolist(), blocked.tolist(), ids), T)


def test_no_repeat_gives_no_induction_and_cross_keys_no_positional_scores():
    A, blocked, _ = random_head(1, 6, 6, "causal")
    r = head_readings(lambda r0, r1: (A[r0:r1], ~blocked[r0:r1]), 6, 6, list("abcdef"))
    assert r.induction is None and r.prev_token is not None
    A, blocked, ids = random_head(2, 4, 7, "none")
    r = head_readings(lambda r0, r1: (A[r0:r1], ~blocked[r0:r1]), 4, 7, ids)
    assert (r.prev_token, r.self_token, r.induction) == (None, None, None)
    check(r, naive(A.tolist(), blocked.tolist(), ids), 4)


def test_nan_rows_are_left_out_of_every_mean():
    A, blocked, ids = random_head(3, 6, 6, "causal")
    A[2] = np.nan  # a fully masked row
    r = head_readings(lambda r0, r1: (A[r0:r1], ~blocked[r0:r1]), 6, 6, ids)
    check(r, naive(A.tolist(), blocked.tolist(), ids), 6)


def a_source(seed=0, L=2, H=4, H_kv=2, T=9, d=3, masks=(("causal", None), ("window", 2))):
    rng = np.random.default_rng(seed)
    arrays = {
        "Q": rng.normal(size=(L, H, T, d)),
        "K": rng.normal(size=(L, H_kv, T, d)),
        "V": rng.normal(size=(L, H_kv, T, d)),
    }
    return HeadSource(
        title="random",
        source="test",
        tokens=tuple("abcabcabc"[:T]),
        ids=tuple("abcabcabc"[:T]),
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=tuple(h // (H // H_kv) for h in range(H)),
        scales=(0.5, 1.25),
        masks=masks,
        dtype="float64",
        read=memory_reader(arrays),
    ), arrays


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (0, 3), (1, 1), (1, 2)])
def test_head_scenario_is_the_head_and_its_readings_are_its_A(layer, head):
    src, arrays = a_source()
    s = head_scenario(src, layer, head)
    kv = head // 2  # 4 heads over 2 K/V heads
    np.testing.assert_array_equal(s.Q, arrays["Q"][layer, head])
    np.testing.assert_array_equal(s.K, arrays["K"][layer, kv])
    np.testing.assert_array_equal(s.V, arrays["V"][layer, kv])
    assert s.scale == pytest.approx(src.scales[layer], rel=4 * EPS)
    assert (s.mask, s.window) == src.masks[layer]
    A = s.run().A  # the explorer's A
    block = src.weights_block(layer, head)
    got = np.vstack([block(r0, min(9, r0 + 4))[0] for r0 in range(0, 9, 4)])
    np.testing.assert_allclose(got, A, rtol=0, atol=16 * EPS)
    r = head_readings_of(src, layer, head)
    check(r, naive(A.tolist(), s.blocked().tolist(), list(src.ids)), 9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    T=st.integers(1, 12),
    spread=st.floats(0.0, 20.0),
    mask=st.sampled_from([("causal", None), ("none", None), ("window", 1), ("window", 3)]),
)
def test_readings_are_bounded(seed, T, spread, mask):
    """0 <= mean H <= mean log2(keys seen); every score is a mean of weights, so within [0, 1]."""
    rng = np.random.default_rng(seed)
    arrays = {k: rng.normal(0, spread, (1, 1, T, 2)) for k in "QKV"}
    src = HeadSource(
        title="h",
        source="",
        tokens=tuple("ab"[i % 2] for i in range(T)),
        ids=tuple("ab"[i % 2] for i in range(T)),
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=(0,),
        scales=(1.0,),
        masks=(mask,),
        dtype="float64",
        read=memory_reader(arrays),
    )
    r = head_readings_of(src, 0, 0)
    tol = 64 * EPS * max(1.0, r.mean_ceiling_bits)
    assert -tol <= r.mean_entropy_bits <= r.mean_ceiling_bits + tol
    for field in ("prev_token", "first_token", "self_token", "induction"):
        x = getattr(r, field)
        assert x is None or -tol <= x <= 1 + tol, field
    assert (r.induction is None) == (T < 3)  # "a b a": the first repeat is at t = 3


def test_sort_by_any_column_nulls_last():
    from attn_tui.core.heads import all_readings, open_heads, sort_readings

    rs = all_readings(open_heads("induction-demo", "a b c d e f"))  # no repeat: induction is null
    for field in readings.FIELDS:
        ordered = sort_readings(rs, field)
        values = [getattr(r, field) for r in ordered if getattr(r, field) is not None]
        assert values == sorted(values, reverse=True) and len(ordered) == len(rs)
        assert [getattr(r, field) for r in sort_readings(rs, field, descending=False)][: len(values)] == sorted(values)
    assert [(r.layer, r.head) for r in sort_readings(rs, "induction")] == [(r.layer, r.head) for r in rs]
    with pytest.raises(ValueError, match="sort: unknown column 'speed'"):
        sort_readings(rs, "speed")

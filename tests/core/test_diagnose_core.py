"""core.diagnose without the UI: each cause of a NaN row built on purpose, the first
offending cell named 1-based, the overflow list, the entropy ceiling."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.core.attention import additive_mask, attention, blocked_cells
from attn_tui.core.diagnose import (
    SHORT,
    NanCause,
    _num,
    ceiling_bits,
    dtype_max,
    first_bad,
    nan_cause,
    nan_causes,
    overflows,
)

F16 = np.float16


def test_masked_row_with_an_infinite_fill():
    tr = builtin("padding-nan").run()
    (cause,) = nan_causes(tr)
    assert cause == NanCause(0, "masked", "", "float64")
    assert cause.short == "fully masked with fill -inf: -inf - (-inf) = NaN"
    f16 = builtin("padding-nan").with_(fill="-1e9", dtype="float16").run()  # -1e9 is -inf in float16
    assert nan_causes(f16) == [NanCause(0, "masked", "", "float16")]


def test_a_row_whose_query_overflowed():
    Q = np.array([[1.0, 0.0], [7e4, 0.0]])  # 70000 > 65504: inf in float16
    tr = attention(Q, np.eye(2), np.eye(2), dtype=F16)
    assert tr.nan_rows == (1,)
    cause = nan_cause(tr, 1)
    assert cause == NanCause(1, "inputs", "Q[2,1] = inf", "float16")
    assert cause.short == "Q/K overflowed float16: Q[2,1] = inf"
    assert overflows(tr)[0] == "Q[2,1] = inf"


def test_a_key_that_overflowed_is_named_for_every_row():
    K = np.array([[1.0, 0.0], [0.0, 7e4]])
    tr = attention(np.ones((2, 2)), K, np.eye(2), dtype=F16)
    assert tr.nan_rows == (0, 1)
    assert [c.where for c in nan_causes(tr)] == ["K[2,2] = inf", "K[2,2] = inf"]
    assert [c.kind for c in nan_causes(tr)] == ["inputs", "inputs"]


def test_a_score_that_overflowed():
    Q = np.array([[1.0, 0.0], [400.0, 0.0]])
    K = np.array([[1.0, 0.0], [400.0, 0.0]])  # 400 · 400 / √2 ≈ 113137 > 65504
    tr = attention(Q, K, np.eye(2), dtype=F16)
    assert tr.nan_rows == (1,)
    cause = nan_cause(tr, 1)
    assert cause == NanCause(1, "scores", "S[2,2] = inf", "float16")
    assert cause.short == "scores overflowed float16: S[2,2] = inf, then inf - inf = NaN"
    assert overflows(tr) == ["S[2,2] = inf"]


def test_a_sum_that_overflowed_with_the_dtype_min_fill():
    Q = np.array([[-10.0, 0.0]])
    K = np.array([[10.0, 0.0], [10.0, 0.0]])  # scores -70.7: -70.7 + (-65504) is -inf in float16
    blocked = np.ones((1, 2), dtype=bool)
    tr = attention(Q, K, np.eye(2), mask=additive_mask(blocked, "min", F16), dtype=F16)
    assert np.isfinite(tr.S).all() and np.isfinite(tr.M).all() and tr.nan_rows == (0,)
    assert nan_causes(tr) == [NanCause(0, "sum", "", "float16")]
    assert nan_causes(tr)[0].short == "S + M overflowed to -inf on every key in float16"
    assert overflows(tr) == []  # the fill is no overflow


def test_other_when_nothing_explains_it():
    tr = attention(np.eye(2), np.eye(2), np.eye(2))
    assert nan_cause(tr, 0) == NanCause(0, "other", "", "float64")  # a finite row: nothing to blame
    assert NanCause(0, "other").short == SHORT["other"] == "a non-finite intermediate"


def test_first_bad_cell_and_numbers():
    a = np.array([[1.0, 2.0, 3.0], [4.0, np.nan, -np.inf], [np.inf, 0.0, 1.0]])
    assert first_bad("S", a) == "S[2,2] = NaN"
    assert first_bad("S", a, 1) == "S[2,2] = NaN"
    assert first_bad("S", a, 2) == "S[3,1] = inf"
    assert first_bad("S", a, 0) == ""
    assert first_bad("K", np.array([[0.0, -np.inf]])) == "K[1,2] = -inf"
    assert [_num(x) for x in (np.nan, np.inf, -np.inf, 1.5, 65504.0, 1e-7)] == [
        "NaN",
        "inf",
        "-inf",
        "1.5",
        "65504",
        "1e-07",
    ]


def test_overflows_lists_q_k_v_s_in_order():
    V = np.array([[7e4, 0.0], [0.0, 1.0]])
    tr = attention(np.eye(2), np.eye(2), V, dtype=F16)
    assert overflows(tr) == ["V[1,1] = inf"]
    big = attention(np.array([[7e4, 0.0]]), np.array([[0.0, -7e4]]), np.array([[7e4]]), dtype=F16)
    assert overflows(big) == ["Q[1,1] = inf", "K[1,2] = -inf", "V[1,1] = inf", "S[1,1] = NaN"]


def test_ceiling_bits_and_dtype_max():
    blocked = np.array([[False, False, True, True], [True, True, True, True], [False, True, True, True]])
    c = ceiling_bits(blocked)
    assert c[0] == 1.0 and math.isnan(c[1]) and c[2] == 0.0
    np.testing.assert_array_equal(ceiling_bits(blocked_cells("none", 2, 8)), [3.0, 3.0])
    assert ceiling_bits(np.array([[0, 0, 1]])).tolist() == [1.0]  # 0/1 as well as booleans
    assert dtype_max("float16") == 65504.0 and dtype_max(np.float64) == float(np.finfo(np.float64).max)
    with pytest.raises(TypeError):
        dtype_max("no-such-dtype")


def test_each_row_is_blamed_on_its_own_cells():
    Q = np.array([[7e4, 0.0], [400.0, 0.0]])  # row 1: Q overflows; row 2: its score overflows
    K = np.array([[400.0, 0.0]])
    tr = attention(Q, K, np.eye(1), dtype=F16)
    assert tr.nan_rows == (0, 1)
    assert nan_causes(tr) == [
        NanCause(0, "inputs", "Q[1,1] = inf", "float16"),
        NanCause(1, "scores", "S[2,1] = inf", "float16"),
    ]
    fine = attention(np.eye(2), np.eye(2), np.eye(2), dtype=F16)
    assert nan_cause(fine, 1) == NanCause(1, "other", "", "float16")

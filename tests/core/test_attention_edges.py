"""core.attention and core.scenario after their rewrites (69df2f8, 8f3060e), written to kill the
mutants of scripts/mutation.sh's run at 2866e06: softmax along any axis it is given, matmul of two
dtypes as NumPy promotes them (only a float16 pair goes through float32), and the few label tuples
Scenario remembers as all-strings. Expectations come from NumPy in the test."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import scenario
from attn_tui.core.attention import matmul, softmax
from attn_tui.core.scenario import Scenario

RNG = np.random.default_rng(57)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_softmax_normalises_along_the_axis_it_is_given(axis):
    x = RNG.standard_normal((3, 5))
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    np.testing.assert_allclose(softmax(x, axis=axis), e / e.sum(axis=axis, keepdims=True), rtol=1e-15)


@pytest.mark.parametrize("da, db", [(np.float16, np.float64), (np.float64, np.float16), (np.float16, np.float32)])
def test_matmul_of_two_dtypes_is_numpys_promoted_product(da, db):
    a = RNG.standard_normal((4, 3)).astype(da)
    b = RNG.standard_normal((3, 2)).astype(db)
    got = matmul(a, b)
    want = a.astype(np.promote_types(da, db)) @ b.astype(np.promote_types(da, db))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_a_float16_pair_is_multiplied_in_float32_and_rounded_once():
    a, b = np.ones((1, 4096), np.float16), np.ones((4096, 1), np.float16)
    got = matmul(a, b)
    assert got.dtype == np.float16 and got[0, 0] == 4096  # float16 alone stops counting at 2048


def test_scenario_remembers_the_last_eight_label_tuples_it_checked():
    made = [tuple(f"w{n}_{i}" for i in range(2)) for n in range(10)]
    for tokens in made:
        Scenario(Q=np.ones((2, 1)), K=np.ones((2, 1)), tokens=tokens)
    held = scenario._STRING_LABELS
    assert len(held) == 8
    assert all(h is t for h, t in zip(held, made[::-1]))  # newest first: the tuples themselves


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_softmax_keeps_a_float_input_s_dtype_and_makes_integers_float64(dtype):
    x = RNG.standard_normal((2, 4)).astype(dtype)
    p = softmax(x)
    assert p.dtype == dtype
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_array_equal(p, e / e.sum(axis=-1, keepdims=True))
    assert softmax(np.array([[1, 2, 3]])).dtype == np.float64

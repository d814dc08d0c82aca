"""core.attention's defaults, refusals and dtypes, each stated: the mutants of the final
mutation run that the property tests let through."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core.attention import additive_mask, attention, blocked_cells, fill_value

EYE = np.eye(3)


def test_defaults():
    assert fill_value() == -1e9 and fill_value().dtype == np.float64
    assert blocked_cells().tolist() == [[False]]  # causal, T = 1
    assert blocked_cells(T=3).tolist() == np.triu(np.ones((3, 3), dtype=bool), 1).tolist()  # causal by default
    M = additive_mask(np.array([[False, True]]))
    assert M.dtype == np.float64 and M.tolist() == [[0.0, -1e9]]


def test_fill_values_exactly():
    assert fill_value("-1e9") == -1e9 and fill_value(-1e9) == -1e9
    assert fill_value("-inf") == -np.inf and fill_value("min", np.float16) == np.finfo(np.float16).min
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # float16 overflows -1e9 to -inf on purpose, silently
        assert fill_value("-1e9", np.float16) == -np.inf


def test_blocked_cells_refusals_word_for_word():
    for window in (None, 0):
        with pytest.raises(ValueError) as err:
            blocked_cells("window", 3, window=window)
        assert str(err.value) == f"window: a sliding window needs a width >= 1, got {window!r}"
    with pytest.raises(ValueError) as err:
        blocked_cells("diagonal", 3)
    assert str(err.value) == "mask: unknown mask 'diagonal'; use one of causal, none, window"
    for p in (3, -1):
        with pytest.raises(ValueError) as err:
            blocked_cells("none", 2, 3, padding=(p,))
        assert str(err.value) == f"padding: key position {p} is outside 0..2"
    assert blocked_cells("none", 1, 3, padding=(2,)).tolist() == [[False, False, True]]


def test_a_mask_of_text_is_refused_with_its_dtype():
    with pytest.raises(ValueError) as err:
        attention(EYE, EYE, EYE, mask=np.full((3, 3), "a"))
    assert str(err.value) == "mask: not a matrix of numbers (dtype <U1)"


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_every_mask_form_keeps_the_dtype(dtype):
    blocked = blocked_cells("causal", 3)
    for mask in (None, blocked, additive_mask(blocked, "-1e9", dtype)):
        tr = attention(EYE, EYE, EYE, mask=mask, dtype=dtype)
        assert tr.M.dtype == tr.S_masked.dtype == tr.A.dtype == tr.O.dtype == dtype
        assert tr.blocked.dtype == bool
    assert attention(EYE, EYE, EYE, dtype=dtype).blocked.tolist() == [[False] * 3] * 3
    tr = attention(EYE, EYE, EYE, mask=blocked, dtype=np.float16)
    assert np.isneginf(tr.M[0, 1])  # a boolean mask's -1e9, in float16: -inf


def test_overflow_is_silent_as_documented():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tr = attention([[300.0]], [[300.0]], [[1.0]], mask=np.array([[-1e9]]), dtype=np.float16)  # S overflows
        assert np.isnan(tr.A).all() and np.isneginf(tr.M).all()
        tr = attention([[1.0], [1.0]], [[1.0]], [[1.0]], mask=np.array([[-np.inf], [0.0]]))  # -inf - -inf
        assert np.isnan(tr.A[0]).all() and tr.A[1, 0] == 1.0
        tr = attention([[7e4, 0.0]], [[0.0, 1.0]], [[1.0]], dtype=np.float16)  # inf · 0 in Q Kᵀ
        assert np.isnan(tr.S).all() and tr.nan_rows == (0,)


def test_dtype_names_are_the_three_and_only_those():
    from attn_tui.core.attention import float_dtype

    assert float_dtype("float16") == np.float16 and float_dtype(np.float32) == np.float32
    for other in ("f8", "float", "double", "int8"):
        with pytest.raises(ValueError, match=r"^dtype: unknown dtype"):
            float_dtype(other)


def test_softmax_of_integers_and_its_silence():
    from attn_tui.core.attention import float_dtype, softmax

    p = softmax(np.array([[1, 2, 3]]))
    assert p.dtype == np.float64
    np.testing.assert_allclose(p, softmax(np.array([[1.0, 2.0, 3.0]])), rtol=0, atol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(softmax(np.array([[-np.inf, -np.inf]]))).all()  # the fully masked row
        assert softmax(np.array([[1e308, -1e308]])).tolist() == [[1.0, 0.0]]  # -1e308 - 1e308 overflows
    with pytest.raises(ValueError) as err:
        float_dtype("f8")
    assert str(err.value) == "dtype: unknown dtype 'f8'; use float64, float32, float16"

"""core.checks rule by rule: check_matrix returns a 2-D float64 array or refuses with one message
naming the matrix and, for a NaN/inf, the first bad cell (1-based, row by row); check_same names
the size it compares. Written to kill the mutants of core/checks.py (scripts/mutation.sh); the
expected messages are built here from the inputs (NumPy's own conversion error, the shape).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core.checks import check_matrix, check_same

BIG = 1.5e308  # finite; two of them sum to inf


def refusal(fn, *args):
    with pytest.raises(ValueError) as e:
        fn(*args)
    assert type(e.value) is ValueError
    return e.value


def numpy_error(a):
    """The error NumPy raises converting ``a`` to float64, as the refusal quotes it."""
    try:
        np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        return exc
    raise AssertionError(f"{a!r} converts")


def test_a_matrix_comes_back_as_2d_float64_with_the_same_values():
    got = check_matrix([[1, 2, 3], [4, 5, 6]], "X")  # integers: converted, not kept as int64
    assert got.dtype == np.float64 and got.shape == (2, 3)
    assert got.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    f16 = np.array([[0.1, -2.5]], dtype=np.float16)
    assert check_matrix(f16, "Q").dtype == np.float64
    assert check_matrix(f16, "Q").tolist() == [[float(f16[0, 0]), -2.5]]
    one = check_matrix([[7]], "K")  # the smallest matrix: 1 x 1
    assert one.shape == (1, 1) and one[0, 0] == 7.0


@pytest.mark.parametrize("bad", [[[1.0, {}]], [[1.0, 2.0], [3.0]], [["a", 1.0]]])
def test_what_numpy_cannot_read_as_numbers_is_refused_with_its_reason(bad):
    exc = numpy_error(bad)  # a dict: TypeError; ragged rows and text: ValueError
    e = refusal(check_matrix, bad, "W_Q")
    assert str(e) == f"W_Q: not a matrix of numbers ({exc})"
    assert e.__cause__ is None and e.__suppress_context__  # one message, no NumPy traceback chained


@pytest.mark.parametrize("a", [5.0, [1.0, 2.0, 3.0], np.zeros((2, 2, 2))])
def test_a_matrix_has_two_dimensions(a):
    ndim = np.ndim(a)
    assert str(refusal(check_matrix, a, "V")) == f"V: must be a 2-D matrix, got {ndim} dimension(s)"


@pytest.mark.parametrize("shape", [(0, 3), (4, 0), (0, 0)])
def test_an_empty_matrix_is_refused_with_its_shape(shape):
    rows, cols = shape
    assert str(refusal(check_matrix, np.zeros(shape), "Y")) == f"Y: is empty (shape {rows}x{cols})"


@pytest.mark.parametrize("bad, shown", [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf")])
@pytest.mark.parametrize("r, c", [(0, 0), (1, 2), (2, 3)])
def test_the_first_non_finite_cell_is_named_1_based(bad, shown, r, c):
    a = np.arange(12.0).reshape(3, 4)
    a[r, c] = bad
    a[2, 3 if (r, c) != (2, 3) else 0] = np.nan  # a later bad cell (or, at the last cell, an earlier one)
    first = (r, c) if (r, c) != (2, 3) else (2, 0)
    value = shown if first == (r, c) else "nan"
    msg = f"X: row {first[0] + 1}, column {first[1] + 1} is {value}; entries must be finite"
    assert str(refusal(check_matrix, a, "X")) == msg


def test_finite_values_whose_sum_is_not_finite_are_accepted_silently():
    # 16 entries: NumPy's sum adds them in 8 lanes (a[0, j] + a[1, j]); lane 0 is BIG + BIG = inf
    # (overflow) and lane 1 is -inf, so the total is inf - inf = NaN (invalid): both warnings
    a = np.zeros((2, 8))
    a[:, 0], a[:, 1] = BIG, -BIG
    with warnings.catch_warnings(record=True) as seen, np.errstate(all="warn"):
        warnings.simplefilter("always")
        assert np.isnan(a.sum())
    assert {str(w.message).split()[0] for w in seen} == {"overflow", "invalid"}
    for m in (a, np.full((3, 2), BIG)):
        with warnings.catch_warnings(), np.errstate(all="warn"):
            warnings.simplefilter("error")  # a RuntimeWarning would be an error: none reaches the user
            got = check_matrix(m, "S")
        assert got.dtype == np.float64 and np.array_equal(got, m)


def test_check_same_names_the_matrix_what_and_both_sizes():
    check_same(3, 3, "K", "columns must equal d_k")
    e = refusal(check_same, 2, 3, "K", "columns must equal d_k")
    assert str(e) == "K: columns must equal d_k (got 2, expected 3)"
    assert str(refusal(check_same, 4, 1, "V", "rows")) == "V: rows (got 4, expected 1)"

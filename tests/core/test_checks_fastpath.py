"""check_matrix's one-pass sum and the label check shared by with_(): same refusals, same acceptances."""

import warnings

import numpy as np
import pytest

from attn_tui.core.checks import check_matrix
from attn_tui.core.scenario import Scenario


def test_finite_values_whose_sum_overflows_are_accepted():
    a = np.full((3, 2), 1.5e308)  # every entry finite; their sum is inf
    with np.errstate(over="ignore"):
        assert not np.isfinite(a.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no overflow warning reaches the user
        assert check_matrix(a, "X") is not None


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_cell_is_named_even_among_huge_values(bad):
    a = np.full((3, 4), -1.5e308)
    a[2, 1] = bad
    with pytest.raises(ValueError, match=r"X: row 3, column 2 is (nan|inf|-inf); entries must be finite"):
        check_matrix(a, "X")


def test_labels_are_checked_for_every_new_tuple_even_after_a_good_one():
    q = np.eye(2)
    good = Scenario(tokens=("a", "b"), Q=q, K=q)
    assert good.with_(c=2.0).tokens is good.tokens  # shared, accepted again
    with pytest.raises(ValueError, match="tokens: labels must be strings"):
        good.with_(tokens=("a", 3))

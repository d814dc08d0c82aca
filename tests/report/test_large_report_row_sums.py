"""Issue 34: the summary's max |row sum of A − 1| measures the weights the large path produces.

It summed e^(x − m) / l in float64, which is 1 by construction: float16 reported 0.0 where
`--full` gives 6.5e-4. Now it sums each row of A as rounded to the dtype (core.stream.weights,
the explorer's A), so it equals the same figure measured from the explorer's LazyTrace and
agrees with the full path's within the dtype's rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.lazy import LazyTrace
from attn_tui.report.summary import summarise, summary_text
from tests.core.blas_standin import BLAS, EPS64, blas, dtype_tols, issue_case

CASES = [
    ("float16", 1.0, dict(mask="none")),
    ("float16", 1.0, dict(mask="causal", padding=(3, 4), fill="-inf")),
    ("float32", 1000.0, dict(mask="none")),
    ("float32", 1.0, dict(mask="window", window=50)),
    ("float64", 1.0, dict(mask="causal")),
]


def worst(A) -> float:
    with np.errstate(invalid="ignore"):
        return float(np.nanmax(np.abs(np.asarray(A, dtype=np.float64).sum(axis=1) - 1.0), initial=0.0))


@pytest.mark.parametrize("kind", BLAS)
@pytest.mark.parametrize(("dtype", "c", "kw"), CASES)
def test_the_row_sum_figure_is_that_of_the_weights_shown_and_the_full_paths(kind, dtype, c, kw, monkeypatch):
    blas(kind, monkeypatch)
    T = 600  # three of the summary's 256-row blocks, and the full path still cheap
    s = issue_case(dtype, T=T, c=c, **dict(kw))
    got = summarise(s)["max_abs_row_sum_minus_1"]
    # The explorer's A, read in its 16 x 512 tiles: the same weights, summed by the summary
    # tile by tile in float64 and here row by row, so T float64 roundings apart at most.
    shown = worst(LazyTrace(s).A)
    assert got == pytest.approx(shown, rel=0, abs=2 * T * EPS64)
    # The full path rounds exp, a T-term sum and the division in the dtype ((3 + log2 T) eps/2
    # of each weight, pairwise summation) where the large path rounds once (eps/2): each
    # figure is within that of 0, so they are within the larger of the two of each other.
    eps, sub, _ = dtype_tols(np.dtype(dtype), T)
    full = worst(s.run().A)
    assert abs(got - full) <= (3 + np.log2(T)) * eps / 2 + T * sub / 2 + 4 * T * EPS64
    if dtype == "float16":  # rows rounded to float16 are off 1 by ~1e-4: the figure must say so
        assert got > 0 and full > 0
        assert f"max |row sum of A - 1|: {got:.3g}" in summary_text(s, figures=summarise(s))

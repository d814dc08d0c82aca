"""A row's weights never exceed 1: LazyTrace's A is exp(X − m) / l with m the row max from
row_stats' products, and a tile read by another product (a 1-row QKᵀ rounds differently from a
16-row one) once exceeded m by an ulp: A of row 1's only key read 1 + 2.2e-16 at T = 16,384 and the
gradient lens printed p(1 − p) = −2.2e-16."""

from __future__ import annotations

import numpy as np

from attn_tui.core.lazy import LazyTrace
from attn_tui.core.scenario import Scenario


def test_a_whole_row_read_at_once_stays_within_0_and_1():
    rng = np.random.default_rng(0)  # the seed and size that showed it (one BLAS thread or two)
    T = 16384
    s = Scenario(Q=rng.standard_normal((T, 64)), K=rng.standard_normal((T, 64)), V=np.ones((T, 2)))
    tr = LazyTrace(s)
    for t in (0, 1, 7):
        row = np.asarray(tr.A[t])
        assert row.max() <= 1.0 and (row * (1 - row)).min() >= 0.0, t
        assert abs(row.sum() - 1.0) <= 1e-12
    assert tr.A[0][0] == 1.0  # causal row 1 sees one key: weight exactly 1

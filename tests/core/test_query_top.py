"""Where one query looks in every head (core/heads/query_top.py), against A computed another way:
each head's Scenario run through core.attention (the pipeline's path), not the source's row blocks."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads import head_scenario, open_heads
from attn_tui.core.heads.query_top import TOP, layer_rows, query_tops, top_keys

REPEAT = "q w e r t y u i q w e r t y u i"


def test_top_keys_orders_by_weight_then_position_and_leaves_masked_out():
    row = np.array([0.1, 0.3, 0.3, 0.05, 0.25, np.nan])
    seen = np.array([True, True, True, True, False, True])
    top = top_keys(row, seen, n=3)
    assert [j for j, _ in top] == [1, 2, 0]  # 0.3 twice: the earlier position first; 0.25 is masked
    assert [w for _, w in top] == [0.3, 0.3, 0.1]
    assert top_keys(np.zeros(3), np.zeros(3, bool)) == ()


@pytest.mark.parametrize("t", [0, 8, 15])
def test_every_heads_row_is_the_pipelines_row(t):
    src = open_heads("induction-demo", REPEAT)
    tops = query_tops(src, t)
    assert [(h.layer, h.head) for h in tops] == [(ly, h) for ly in range(src.n_layers) for h in range(src.n_heads)]
    for ht in tops:
        A = head_scenario(src, ht.layer, ht.head).run().A[t]  # core.attention, every key
        order = sorted(range(t + 1), key=lambda j: (-A[j], j))[:TOP]
        assert [j for j, _ in ht.top] == order
        eps = np.finfo(np.float64).eps
        assert np.allclose([w for _, w in ht.top], A[order], rtol=0, atol=64 * eps)


def test_one_layer_and_the_induction_heads_look_after_the_earlier_copy():
    src = open_heads("induction-demo", REPEAT)
    t = 9  # the second "w": its earlier copy is at 1 (0-based), the token after it at 2
    tops = query_tops(src, t, layer=1)
    assert {h.layer for h in tops} == {1}
    assert sum(h.top[0][0] == 2 for h in tops) >= 2  # layer 1 of the demo holds its induction heads


def test_rows_refuse_a_position_that_is_not_there():
    src = open_heads("induction-demo", REPEAT)
    with pytest.raises(ValueError, match="positions 1..16"):
        layer_rows(src, 0, 16)
    A, seen = layer_rows(src, 0, 3)
    assert A.shape == (src.n_heads, src.T_k) and seen.tolist() == [True] * 4 + [False] * 12

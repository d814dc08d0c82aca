"""Grid views: what each pane shows, read off a State, for every built-in scenario."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import BUILTINS, builtin
from attn_tui.core.matrices import MATRICES
from attn_tui.tui.state import State
from attn_tui.tui.views.grids import grid_view


@pytest.mark.parametrize("name", BUILTINS)
def test_every_view_has_one_label_per_row_and_column_and_its_shape_in_the_title(name):
    st = State(builtin(name))
    for m in MATRICES:
        if m == "S_masked":
            continue  # not a pane
        v = grid_view(m, st)
        if v is None:
            assert m in ("X", "Y", "W_Q", "W_K", "W_V")
            continue
        rows, cols = v.values.shape
        assert (len(v.rows), len(v.cols)) == (rows, cols)
        assert f"({rows}×{cols})" in v.title + v.short or m == "H"
        assert v.selected == MATRICES[m].row_linked


def test_the_views_carry_the_trace_not_a_copy_of_its_numbers():
    st = State(builtin("lesson-pipeline"))
    assert grid_view("A", st).values is st.trace.A
    assert grid_view("W_V", st).title.endswith("· W_Q+W_K+W_V 72 params")  # 6·(2·4 + 4) = 72 in all three
    h = grid_view("H", st)
    np.testing.assert_array_equal(h.values[:, 1], st.trace.H)
    np.testing.assert_allclose(h.values[:, 0], np.log2(np.arange(1, 6)))  # causal: t keys visible at row t


def test_the_entropy_ceiling_is_headed_log2_t_only_when_row_t_sees_t_keys():
    st = State(builtin("lesson-pipeline"))
    assert grid_view("H", st).cols[0] == "log₂t"
    window = st.with_scenario(mask="window", window=2)
    assert grid_view("H", window).cols[0] == "log₂n"
    np.testing.assert_allclose(grid_view("H", window).values[:, 0], np.log2([1, 2, 2, 2, 2]))
    assert grid_view("H", st.with_scenario(padding=(2,))).cols[0] == "log₂n"

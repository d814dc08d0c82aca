"""Grid views: what each pane shows, read off a State, for every built-in scenario."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import BUILTINS, builtin
from attn_tui.core.matrices import INPUTS, MATRICES, PROJECTION_INPUTS
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
            assert m in PROJECTION_INPUTS and getattr(st.scenario, m) is None
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


def test_the_entropy_tables_cell_width_holds_across_c_at_T_12():
    """2^H passes 10 as c flattens the rows of a 12-token causal scenario: the table's range is
    its bound [0, 2^log₂12] from the start, so its width never changes under `+`/`-` (a new width
    lays the screen out again)."""
    from dataclasses import replace

    from attn_tui.bench.cpu import random_scenario
    from attn_tui.core.limits import C_MAX, C_MIN
    from attn_tui.tui.widgets.palette import width_for

    base = random_scenario(12)
    cs = np.geomspace(C_MIN, C_MAX, 13)
    views = [grid_view("H", State(replace(base, c=float(c)))) for c in cs]
    widths = {width_for(v.lo, v.hi) for v in views}
    assert len(widths) == 1
    for v in views:
        assert v.lo <= np.nanmin(v.values) and np.nanmax(v.values) <= v.hi
    raw = {width_for(float(np.nanmin(v.values)), float(np.nanmax(v.values))) for v in views}
    assert len(raw) == 2  # the values alone would have changed it: the scenario crosses 10


def test_the_grids_and_the_help_take_their_matrices_from_the_table():
    """core/matrices.py is the only list: a pane for each of its matrices but S + M (drawn in A's),
    c leaves the inputs' and the mask's views alone, and the key help names the table's inputs."""
    from attn_tui.tui.keys import KEYS
    from attn_tui.tui.views import grids

    assert set(grids._PARTS) == set(MATRICES) - {"S_masked"}
    assert grids.C_FREE == {*INPUTS, "M"}
    (edit,) = [k for k in KEYS if k.key == "enter" and k.scope == "grid"]
    assert edit.help.endswith(f"({', '.join(INPUTS)})")

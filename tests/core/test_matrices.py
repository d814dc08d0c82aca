"""The one table of matrices (core/matrices.py) agrees with what the core computes."""

from __future__ import annotations

import pytest

from attn_tui.core import BUILTINS, builtin
from attn_tui.core.edit import EditError, matrix_of
from attn_tui.core.matrices import INPUTS, MATRICES, ROW_LINKED, axis_labels, computed_hint, shape
from attn_tui.core.random_scenario import random_scenario
from attn_tui.core.scenario import MATRICES as STORED

SCENARIOS = [builtin(n) for n in BUILTINS] + [random_scenario(T=7, d_model=5, d_k=3, d_v=2, seed=1)]


def test_the_inputs_are_what_a_scenario_stores():
    assert set(INPUTS) == set(STORED)


@pytest.mark.parametrize("s", SCENARIOS, ids=[s.title[:30] for s in SCENARIOS])
def test_shapes_and_labels_match_the_computed_matrices(s):
    tr = s.run()
    for name in MATRICES:
        got = shape(s, name)
        stored = getattr(s, name, None) if name in STORED else None
        actual = getattr(tr, name, None) if name not in ("X", "Y", "W_Q", "W_K", "W_V", "H") else stored
        if name == "H":
            actual = (s.T, 3)
        elif actual is not None:
            actual = actual.shape
        assert got == actual, name
        if got is not None:
            rows, cols = axis_labels(s, name)
            assert (len(rows), len(cols)) == got, name


def typed_in(s, name: str) -> bool:
    """What the table says: the learner edits matrix ``name`` in scenario ``s`` (an input, not computed)."""
    m = MATRICES.get(name)
    if m is None or m.typed == "never":
        return False
    return getattr(s, name) is not None or (m.typed == "direct" and not s.projected)


@pytest.mark.parametrize("s", SCENARIOS, ids=[s.title[:30] for s in SCENARIOS])
def test_typed_in_means_the_editor_can_edit_it(s):
    for name in MATRICES:
        if typed_in(s, name):
            assert matrix_of(s, name).shape == shape(s, name)
        else:
            with pytest.raises(EditError):
                matrix_of(s, name)


def test_row_linked_grids_have_query_rows():
    assert ROW_LINKED == {n for n, m in MATRICES.items() if m.rows == "tokens"}
    assert {"X", "Q", "S", "M", "A", "O", "H"} <= ROW_LINKED and not {"K", "V", "W_Q"} & ROW_LINKED


def test_the_hint_names_the_inputs_of_the_scenario_at_hand():
    cross = builtin("cross-attention")
    assert "edit Y or W_K" in computed_hint(cross, "K") and ", Y" in computed_hint(cross, "S")
    direct = builtin("lesson-handcrafted")
    assert "edit Q, K" in computed_hint(direct, "A") and "edit V or" in computed_hint(direct, "O")
    assert computed_hint(builtin("lesson-pipeline"), "O").startswith("O is computed, not edited. O = A·V: edit W_V")


def test_the_nan_note_does_not_recommend_a_fill_that_is_itself_inf():
    from attn_tui.core.modes import explanations

    s = builtin("padding-nan").with_(dtype="float16", fill="-1e9")  # -1e9 is -inf in float16
    text = " ".join(explanations(s, s.run()))
    assert "-inf - (-inf) = NaN" in text and "dtype's min" in text and "(-1e9, " not in text

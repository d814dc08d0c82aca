"""The one table of matrices (core/matrices.py) agrees with what the core computes."""

from __future__ import annotations

import pytest

from attn_tui.core import BUILTINS, builtin
from attn_tui.core.edit import EditError, matrix_of
from attn_tui.core.matrices import (
    INPUTS,
    MATRICES,
    PROJECTION_INPUTS,
    PROJECTIONS,
    ROW_LINKED,
    TOKEN_ROWS,
    axis_labels,
    computed_hint,
    shape,
)
from attn_tui.core.random_scenario import random_scenario

SCENARIOS = [builtin(n) for n in BUILTINS] + [random_scenario(T=7, d_model=5, d_k=3, d_v=2, seed=1)]


def test_the_inputs_are_what_a_scenario_stores():
    from dataclasses import fields

    from attn_tui.core.scenario import Scenario

    stored = [f.name for f in fields(Scenario) if f.name in MATRICES]  # its matrix fields, in order
    assert tuple(stored) == INPUTS  # the table lists them in file order


@pytest.mark.parametrize("s", SCENARIOS, ids=[s.title[:30] for s in SCENARIOS])
def test_shapes_and_labels_match_the_computed_matrices(s):
    tr = s.run()
    for name in MATRICES:
        got = shape(s, name)
        stored = getattr(s, name, None) if name in INPUTS else None
        actual = getattr(tr, name, None) if name not in (*PROJECTION_INPUTS, "H") else stored
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


# -- every list of matrices is read off the table ---------------------------------------------------
# Adding or removing a row of MATRICES is the only edit a new matrix needs: each consumer's list is
# checked against what the table says (computed here from the table, not pasted), and no module
# writes the list of inputs out by hand again.


def test_the_derived_lists_follow_the_table():
    assert INPUTS == tuple(n for n, m in MATRICES.items() if m.typed in ("always", "direct"))
    assert PROJECTION_INPUTS + PROJECTIONS == INPUTS  # "always" rows first in the table, then Q, K, V
    assert set(TOKEN_ROWS) == {n for n in INPUTS if "features" not in MATRICES[n].rows}


def test_the_file_formats_store_the_inputs_of_the_table():
    from attn_tui.core import arrays_io, scenario_io

    at = scenario_io.KEYS.index(INPUTS[0])
    assert scenario_io.KEYS[at : at + len(INPUTS)] == INPUTS  # a file's keys, in the table's order
    s = builtin("cross-attention")
    again = scenario_io.loads(scenario_io.dumps(s))
    assert all((getattr(s, n) is None) == (getattr(again, n) is None) for n in INPUTS)
    for refuse in (scenario_io.from_dict, arrays_io._check_names):  # the two doors name the same keys
        with pytest.raises(ValueError, match="unknown key") as stray:
            refuse({"nonsense": 1})
        assert ", ".join(INPUTS) in str(stray.value)


@pytest.mark.parametrize("s", SCENARIOS[:3], ids=[s.title[:30] for s in SCENARIOS[:3]])
def test_the_editor_and_the_inspector_take_the_inputs_of_the_table(s):
    from attn_tui.core.derive import derivation

    tr = s.run()
    for name in MATRICES:
        if shape(s, name) is None:
            continue
        lines = derivation(s, tr, name, 0, 0)
        given = any("an input" in line or "identity" in line for line in lines)
        assert given == typed_in(s, name), (name, lines)  # the inspector calls the table's inputs inputs
        if name not in INPUTS:
            with pytest.raises(EditError):
                matrix_of(s, name)


def _literals(tree):
    import ast

    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
            if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                yield node.lineno, {e.value for e in node.elts}


def test_no_module_writes_the_list_of_inputs_by_hand():
    import ast
    from pathlib import Path

    import attn_tui

    lists = {frozenset(INPUTS), frozenset(PROJECTION_INPUTS), frozenset((*INPUTS, "M"))}
    root = Path(attn_tui.__file__).parent
    found = [
        f"{path.relative_to(root)}:{line}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "matrices.py"
        for line, names in _literals(ast.parse(path.read_text(encoding="utf-8")))
        if names in lists
    ]
    assert not found, f"derive these from core/matrices.py: {found}"

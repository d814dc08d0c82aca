"""The cell inspector's explanations, with the lesson pipeline's numbers (no UI needed)."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.tui.state import State
from attn_tui.tui.views.grids import grid_view
from attn_tui.tui.views.inspector import inspector_lines as explain

GRIDS = ("X", "Y", "W_Q", "W_K", "W_V", "Q", "K", "V", "S", "M", "A", "O", "H")


def lines(cursor, row, name="lesson-pipeline"):
    return "\n".join(explain(State(builtin(name)).with_(cursor=cursor, row=row)))


def test_score_cell_shows_q_k_and_the_scale():
    text = lines(("S", 3, 0), 3)
    assert "q = [2.000 0.000 0.000 0.000]" in text  # it (a pronoun) asks for a noun: W_Q row 4
    assert "k = [3.000 0.000 0.000 0.000]" in text  # mat advertises "noun": W_K row 1
    assert "q·k = 6.000;  c·q·k/√d_k = 1.000×6.000/√4 = 3.000" in text


def test_weight_cell_shows_the_softmax_quotient():
    text = lines(("A", 3, 0), 3)
    want = np.exp(3) / (np.exp(3) + 3)
    assert f"= {want:.3f}" in text and "exp(3.000 − 3.000)" in text


def test_output_cell_sums_weights_times_values():
    assert "0.870×1.000" in lines(("O", 3, 0), 3)


def test_entropy_row_shows_bits_and_effective_tokens():
    text = lines(("H", 3, 1), 3)
    assert "bits" in text and "2^H" in text


def test_nan_row_is_explained():
    assert "−∞ − (−∞) = NaN" in lines(("A", 0, 0), 0, "padding-nan")


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_cell_of_every_builtin_explains(name):
    st = State(builtin(name))
    for g in GRIDS:
        view = grid_view(g, st)
        if view is None:
            continue
        for r in range(view.values.shape[0]):
            for c in range(view.values.shape[1]):
                row = min(r, st.scenario.T - 1)
                assert explain(st.with_(cursor=(g, r, c), row=row))

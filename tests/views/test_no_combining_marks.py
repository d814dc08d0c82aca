"""The inspector and the lenses' equation name S + M in glyphs every renderer keeps: a browser
(xterm.js under `attn-tui serve`) dropped the combining tilde of S̃, and the inspector then said
S where it meant S + M (issue 31)."""

from __future__ import annotations

import unicodedata

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.derive import derivation
from attn_tui.tui.state import State
from attn_tui.tui.views.lesson_panes import equation


def combining(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in text if unicodedata.combining(ch)]


@pytest.mark.parametrize("name", ["lesson-pipeline", "padding-nan"])
def test_every_cell_of_every_matrix_is_derived_without_combining_marks(name):
    s = builtin(name)
    tr = s.run()
    for m in ("X", "W_Q", "W_K", "W_V", "Q", "K", "V", "S", "M", "A", "O"):
        rows, cols = getattr(tr, m, None).shape if getattr(tr, m, None) is not None else (0, 0)
        for r in range(rows):
            for c in range(cols):
                lines = derivation(s, tr, m, r, c)
                assert not combining("\n".join(lines)), (m, r, c, lines)


def test_the_equation_names_s_plus_m():
    text = equation(State(scenario=builtin("lesson-pipeline"))).plain
    assert "softmax(S + M)" in text and not combining(text)

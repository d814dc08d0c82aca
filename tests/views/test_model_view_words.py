"""The model view's words (issue 51): a near-uniform row is marked before its keys' names, a key gets
every name that applies, and the legend speaks of no colour where there is none."""

from __future__ import annotations

import numpy as np
import pytest
from rich.style import Style

from attn_tui.core.heads import open_heads
from attn_tui.core.heads.query_top import NEAR_UNIFORM, HeadTop, query_tops, row_entropy
from attn_tui.core.heads.source import head_scenario
from attn_tui.tui.heads_nav import HeadRef
from attn_tui.tui.state import State
from attn_tui.tui.views.model_view import LEGEND, head_lines, legend


def test_a_near_uniform_row_is_marked_before_its_labels():
    """A head whose row t is near uniform (H within 5 % of log2 of its keys) says so before its keys: on a
    random-weight head the after-copy key at 0.06 is a name, not a reading. A sharp row is not marked."""
    flat = np.full(16, 1 / 16)
    H, top = row_entropy(flat, np.ones(16, bool))
    assert top == pytest.approx(4.0) and H == pytest.approx(4.0, abs=16 * np.finfo(float).eps)
    sharp = np.array([0.97] + [0.002] * 15)
    Hs, _ = row_entropy(sharp, np.ones(16, bool))
    assert HeadTop(0, 0, (), H, top).near_uniform and not HeadTop(0, 1, (), Hs, top).near_uniform
    edge = (1 - NEAR_UNIFORM) * top
    assert HeadTop(0, 0, (), edge, top).near_uniform and not HeadTop(0, 0, (), edge - 1e-9, top).near_uniform
    assert not HeadTop(0, 0, (), 0.0, 0.0).near_uniform  # one key seen: no choice, not "near uniform"
    state = _open_demo_state()
    tops = [HeadTop(0, 0, ((0, 0.5),), H, top), HeadTop(0, 1, ((0, 0.5),), Hs, top)]
    lines = head_lines(state, tops, (Style(),) * 10, Style()).plain.splitlines()
    assert "near uniform" in lines[0] and "near uniform" not in lines[1]


def _open_demo_state():
    src = open_heads("induction-demo")
    return State(head_scenario(src, 0, 0), row=9, head=HeadRef(src, 0, 0, "induction-demo"))


def test_the_model_view_legend_speaks_of_no_colour_without_one():
    assert legend(False) == LEGEND and "colour scale" in LEGEND and "shaded" in LEGEND
    plain = legend(True)
    assert "shaded" not in plain and "no colour scale: read the numbers" in plain and "near uniform" in plain


def test_query_tops_carry_each_rows_entropy_and_ceiling():
    """The core's rows: H(A_t) and log2 of the keys t sees, as the entropy of the row it lists."""
    src = open_heads("induction-demo")
    for ht in query_tops(src, 9, 1):
        assert ht.ceiling_bits == pytest.approx(np.log2(10))
        assert 0 <= ht.entropy_bits <= ht.ceiling_bits and not ht.near_uniform  # trained induction heads: sharp

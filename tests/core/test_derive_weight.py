"""The inspector's A lines (core.derive._weight, small, _weight_note) at the edges of their rules,
written to kill the mutants of 4a4ffeb's and ee140e3's code (scripts/mutation.sh at d6b85d1):
a row max of exactly 1e6 is "huge" (the difference is written, not "1e6 − 1e6"), a weight of
exactly 0.1 is not "below 0.1" (written as every other number), and a masked cell whose score
beats the -1e9 fill while the row still sees a key says so. Expected lines are built from the
trace with core.numfmt.fit_number, as in test_derive.py."""

from __future__ import annotations

import numpy as np

from attn_tui.core.derive import derivation
from attn_tui.core.numfmt import fit_number
from attn_tui.core.scenario import Scenario


def num(x) -> str:
    return fit_number(float(x), 10)


def exp_line(tr, r, c, huge):
    x = tr.S_masked[r].astype(np.float64)
    mx, total = x.max(), np.exp(x - x.max()).sum()
    arg = f"(S+M) − max = {num(x[c] - mx)}" if huge else f"{num(x[c])} − {num(mx)}"
    return f"= exp({arg}) / {num(total)}"


def test_a_row_max_of_exactly_1e6_is_written_as_a_difference_and_just_below_as_two_numbers():
    # d_k = 1, scaled by 1/√1: S = q·k exactly, 1000 · 1000 = 1e6
    at = Scenario(Q=np.array([[1000.0]]), K=np.array([[1000.0], [999.0]]), mask="none")
    below = Scenario(Q=np.array([[999.0]]), K=np.array([[1000.0], [999.0]]), mask="none")
    for s, huge in ((at, True), (below, False)):
        tr = s.run()
        assert (tr.S_masked[0].max() >= 1e6) == huge  # the premise: 1e6 itself, 999000 below it
        for c in range(2):
            assert derivation(s, tr, "A", 0, c)[2] == exp_line(tr, 0, c, huge), (huge, c)


def test_a_weight_of_exactly_0_1_is_not_below_0_1():
    # Q = 0: ten equal scores, every weight 1 / 10, which is the float 0.1
    rng = np.random.default_rng(3)
    s = Scenario(Q=np.zeros((10, 2)), K=rng.standard_normal((10, 2)), mask="none")
    tr = s.run()
    assert tr.A[4, 7] == 0.1
    e = np.exp(tr.S_masked[4] - tr.S_masked[4].max())
    assert derivation(s, tr, "A", 4, 7)[3] == f"= {num(e[7])} / {num(e.sum())} = {num(0.1)}"  # "0.100", as n writes


def test_a_masked_cell_whose_score_beats_the_fill_says_the_fill_does_not_outweigh_it():
    # causal, fill -1e9: row 1's key 2 is masked, but its score 1e9 cancels the fill: S + M = [0, 0]
    s = Scenario(Q=np.array([[1e5], [1.0]]), K=np.array([[0.0], [1e4]]), mask="causal")
    tr = s.run()
    assert tr.blocked[0, 1] and not tr.blocked[0, 0] and tr.A[0, 1] == 0.5
    assert derivation(s, tr, "A", 0, 1)[-1] == "masked, yet not 0: the fill does not outweigh these scores"
    assert derivation(s, tr, "A", 0, 0)[-1] == ""  # the open key: no note

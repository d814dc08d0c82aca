"""Issue 42 item 10, the last wording faults, each sentence checked against the case it speaks of:
FlashAttention's traffic, a tied row's entropy limit, the rank lens's reading, the entropy help."""

from __future__ import annotations

import re

import numpy as np
from rich.console import Console

from attn_tui.core.builtins import builtin
from attn_tui.core.scenario import Scenario
from attn_tui.tui.state import State
from attn_tui.tui.views import cost_lens, rank_lens, reveals
from attn_tui.tui.views.grids import PANE_HELP


def text(renderable, width: int = 400) -> str:
    with open("/dev/null", "w") as sink:
        con = Console(width=width, record=True, file=sink)
        con.print(renderable)
        return con.export_text()


def test_flashattention_removes_the_memory_and_cuts_the_traffic():
    """Dao et al. 2022: Θ(T²d²/M) accesses to slow memory, still T²; only the T² memory goes."""
    lens = " ".join(text(cost_lens.cost(State(builtin("lesson-pipeline")))).split())
    for words in (lens, reveals.ex5_reveal()):
        assert "memory and traffic" not in words
        assert "cuts the traffic" in words and "still grows as T²" in words


def test_a_tied_row_falls_toward_log2_k_from_above():
    s = builtin("lesson-handcrafted")
    said = reveals.doubled_reveal()
    k = int(re.search(r"ties (\d+) keys", said).group(1))
    row = s.T - 1
    hs = [s.with_(c=c).run().H[row] for c in (1.0, 4.0, 16.0, 64.0)]
    assert all(a > b >= np.log2(k) - 1e-9 for a, b in zip(hs, hs[1:]))  # falls, from above
    assert "leaves it" not in said and "from above" in said


def _rank(s: Scenario) -> str:
    return " ".join(text(rank_lens.rank_reading(State(s))).split())


def test_the_rank_lens_claims_the_d_k_budget_only_where_it_binds():
    rng = np.random.default_rng(0)
    wide = Scenario(Q=rng.standard_normal((3, 6)), K=rng.standard_normal((3, 6)), mask="none")  # T ≤ d_k
    assert "arbitrary" not in _rank(wide) and "no limit" in _rank(wide)
    assert "cannot realise an arbitrary T×T pattern" in _rank(builtin("lesson-pipeline"))  # d_k 4 < T 5


def test_the_rank_lens_says_a_causal_a_is_always_full_rank():
    s = builtin("lesson-pipeline")
    assert "always full rank" in _rank(s) and np.linalg.matrix_rank(s.run().A) == s.T
    open_a = _rank(s.with_(mask="none"))
    assert "always full rank" not in open_a and "generally full rank" in open_a


def test_the_rank_words_start_each_sentence_with_a_capital():
    s = builtin("lesson-pipeline")
    info = State(s).rank
    for rank_a in (None, 5):  # None: rank A not computed (a large T)
        words = rank_lens.rank_words(info, rank_a, s)
        assert not re.search(r"\. [a-z]", words), words


def test_the_entropy_help_names_every_ceiling():
    help_h = PANE_HELP["H"]
    assert "log₂T′" in help_h and "no mask" in help_h and "cross-attention" in help_h
    assert "and —" not in help_h

"""core.limits, rule by rule: what each door refuses, with the message naming the key, the row
and column (1-based) or the size, raised as the door's own exception class; and the helpers
that keep a message on one short line. Written to kill the mutants of core/limits.py
(scripts/mutation.sh); the expected numbers are computed here (digit counts, sizes).
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest

from attn_tui.core import limits
from attn_tui.core.builtins import builtin
from attn_tui.core.scenario import Scenario
from tests import refusals


class DoorError(ValueError):
    """A door's own exception class: a refusal must come as this, not as a bare ValueError."""


refuses = partial(refusals.refuses, DoorError, error=DoorError)  # the door's own class, passed to it as error=


def test_printable_escapes_control_characters_and_lone_surrogates_only():
    assert limits.printable("é\x07z\x1b") == "é\\x07z\\x1b"
    assert limits.printable("a\udcffb") == "a\\udcffb"
    assert limits.printable("plain é") == "plain é"


def test_shown_keeps_a_value_on_one_short_line():
    text = "x" * 38  # its repr is 40 characters: it fits the default width
    assert limits.shown(text) == repr(text)
    long = "y" * 39
    assert limits.shown(long) == repr(long)[:37] + "..." and len(limits.shown(long)) == 40
    assert limits.shown(10**30) == repr(10**30)
    assert limits.shown(10**30 + 1) == "an integer of 31 digits"
    assert limits.shown(-(10**31)) == "an integer of 32 digits"
    assert limits.shown(True) == "True"
    huge = 10**5000  # beyond str()'s 4300 digits: estimated from its bits
    assert limits.shown(huge) == f"an integer of about {5000 + 1} digits"


def test_check_dim_and_check_c():
    limits.check_dim("T", limits.DENSE_MAX)
    refuses("T: 513; sizes (T, T', d_model, d_k, d_v) are at most 512", limits.check_dim, "T", 513)
    limits.check_c(limits.C_MIN)
    refuses(
        "c: the scale multiplier must be a number from 0.001 to 1000 (the knob's range), got True", limits.check_c, True
    )
    refuses(
        "c: the scale multiplier must be a number from 0.001 to 1000 (the knob's range), got 5000", limits.check_c, 5000
    )


def test_clean_label_defaults_and_limit():
    assert limits.clean_label("a\t\nb", "w") == "a b"
    assert limits.clean_label("z" * limits.MAX_LABEL, "w") == "z" * limits.MAX_LABEL
    with pytest.raises(ValueError, match=r"^w: a label cannot be empty$"):
        limits.clean_label(" ", "w")


def test_check_values_names_the_first_cell_beyond_the_bound():
    refuses(
        "X: row 2, column 1 is 2e+06; entries must satisfy |x| <= 1e+06",
        limits.check_values,
        "X",
        [[1, 2], [2 * 10**6, 3]],
    )
    refuses("X: row 1, column 2 is 1e+20; entries must satisfy |x| <= 1e+06", limits.check_values, "X", [[1, 10**20]])


def test_inputs_names_the_cells_a_computed_entry_comes_from():
    self_ = builtin("lesson-pipeline")
    cross = builtin("cross-attention")
    qk = builtin("lesson-handcrafted")
    assert limits._inputs(self_, "S", 1, 2) == "X row 2 (through W_Q) and X row 3 (through W_K)"
    assert limits._inputs(cross, "S", 1, 2) == "X row 2 (through W_Q) and Y row 3 (through W_K)"
    assert limits._inputs(qk, "S", 1, 2) == "Q row 2 and K row 3"
    assert limits._inputs(self_, "O", 1, 2) == "the values: W_V column 3"
    assert limits._inputs(qk, "O", 1, 2) == "the values: V column 3"
    assert limits._inputs(qk, "K", 1, 2) == "K row 2, column 3"
    assert limits._inputs(self_, "Q", 1, 2) == "X row 2 and W_Q column 3"
    assert limits._inputs(cross, "Q", 1, 2) == "X row 2 and W_Q column 3"
    assert limits._inputs(cross, "K", 1, 2) == "Y row 2 and W_K column 3"
    assert limits._inputs(self_, "V", 1, 2) == "X row 2 and W_V column 3"


def test_compute_problem_reports_without_a_runtime_warning():
    s = Scenario(Q=[[1.0], [400.0]], K=[[1.0], [400.0]], dtype="float16", mask="none")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would be an error here
        problem = limits.compute_problem(s)
    assert problem == ("S", "Q row 2 and K row 2", "float16", 65504.0)
    refuses("Q row 2 and K row 2: S overflows float16 (largest finite 65504); use smaller values", limits.admit, s)


def test_admit_refuses_as_the_door_s_class():
    s = builtin("lesson-pipeline")
    refuses(
        "X: row 1, column 1 is 2e+06; entries must satisfy |x| <= 1e+06",
        limits.admit,
        s.with_(X=np.full_like(s.X, 2e6)),
    )
    refuses(
        "c: the scale multiplier must be a number from 0.001 to 1000 (the knob's range), got 2000.0",
        limits.admit,
        s.with_(c=2000.0),
    )
    refuses("window: a width from 1 to 512, got 600", limits.admit, s.with_(mask="window", window=600))
    assert limits.admit(s.with_(mask="window", window=1)).window == 1
    refuses("title: contains the control character \\x07; titles are plain text", limits.admit, s.with_(title="a\x07"))
    refuses("title: 201 characters; titles are at most 200", limits.admit, s.with_(title="t" * 201))
    refuses(
        "tokens: label 2: contains the control character \\x1b; labels are plain text",
        limits.admit,
        s.with_(tokens=("a", "b\x1b", "c", "d", "e")),
    )
    assert limits.admit(s.with_(title="a\n b")).title == "a b"


def test_sizes_at_the_door():
    wide = Scenario(Q=np.zeros((2, 513)), K=np.zeros((2, 513)))
    refuses("d_k: 513; with 2 tokens d_model, d_k, d_v are at most 512", limits.admit, wide)
    at = Scenario(Q=np.zeros((512, 1)), K=np.zeros((512, 1)), mask="window", window=512)
    assert limits.admit(at) is at


def test_the_large_door_of_array_files():
    assert limits.gib(2**30) == "1.0 GiB" and limits.gib(2**30 - 2**20) == "1023 MiB"
    need = f"its T x T' matrices would need {limits.gib(5 * 8 * 2 * 600)} (5 of 2 x 600 in float64)"
    refuses(
        f"T: T' = 600 tokens; at most 512 here (`attn-tui --scenario FILE` and `attn-tui report --scenario FILE` "
        f"take up to 16384); {need}",
        limits.check_tokens,
        2,
        600,
    )
    need = f"its T x T' matrices would need {limits.gib(5 * 8 * 20000)} (5 of 20000 x 1 in float64)"
    refuses(f"T: T = 20000 tokens; at most 16384: {need}", limits.check_tokens, 20000, 1, True)
    long = Scenario(Q=np.zeros((600, 1)), K=np.zeros((600, 1)), mask="none")
    with pytest.raises(ValueError, match="^T: T = 600 tokens; at most 512 here"):
        limits.check_sizes(long)  # the small door by default
    with pytest.raises(DoorError, match="^T: T = 600 tokens"):
        limits.check_sizes(long, DoorError)  # as the door's own class
    with pytest.raises(ValueError, match="^T: T = 600 tokens; at most 512 here"):
        limits.admit(long)
    wide = Scenario(Q=np.zeros((600, 300)), K=np.zeros((600, 300)), mask="none")
    limits.check_sizes(wide, large=True)  # a file's door judges bytes held (core.reader_sizes), not a width
    limits.check_sizes(Scenario(Q=np.zeros((2, 512)), K=np.zeros((2, 512))), DoorError)
    v = Scenario(Q=np.zeros((2, 1)), K=np.zeros((2, 1)), V=np.zeros((2, 513)))
    refuses("d_v: 513; with 2 tokens d_model, d_k, d_v are at most 512", limits.check_sizes, v)
    x = Scenario(X=np.zeros((2, 513)), W_Q=np.zeros((513, 1)), W_K=np.zeros((513, 1)), W_V=np.zeros((513, 1)))
    refuses("d_model: 513; with 2 tokens d_model, d_k, d_v are at most 512", limits.check_sizes, x)


def test_windows_wider_than_512_only_for_a_large_file():
    long = Scenario(Q=np.zeros((600, 1)), K=np.zeros((600, 1)), mask="window", window=600)
    assert limits.admit(long, large=True).window == 600
    for s in (
        builtin("lesson-pipeline").with_(mask="window", window=600),
        Scenario(Q=np.zeros((512, 1)), K=np.zeros((512, 1)), mask="window", window=600),
    ):
        refuses("window: a width from 1 to 512, got 600", limits.admit, s, large=True)


@pytest.mark.parametrize("T, T_k", [(511, 511), (512, 512), (513, 513), (1, 512), (1, 513)])
def test_compute_problem_streams_above_max_dim_only(monkeypatch, T, T_k):
    # the last query and key are 400: their score 400 * 400 = 160000 overflows float16 (max 65504)
    # in S's last cell, the other scores are 1; both paths name it the same way
    Q, K = np.ones((T, 1)), np.ones((T_k, 1))
    Q[-1, 0] = K[-1, 0] = 400.0
    assert 400.0 * 400.0 > float(np.finfo(np.float16).max)
    s = Scenario(Q=Q, K=K, dtype="float16", mask="none")
    streamed = []
    real = limits._streamed_problem
    monkeypatch.setattr(limits, "_streamed_problem", lambda sc: streamed.append(sc) or real(sc))
    want = ("S", f"Q row {T} and K row {T_k}", "float16", float(np.finfo(np.float16).max))
    assert limits.compute_problem(s) == want
    # the T x T' trace up to MAX_DIM tokens (T and T' both), the streamed search past it
    assert len(streamed) == (1 if max(T, T_k) > limits.DENSE_MAX else 0) and all(x is s for x in streamed)
    assert limits.compute_problem(s.with_(Q=np.ones((T, 1)), K=np.ones((T_k, 1)))) is None

"""New-user review, group B, the pure side: undo of identical scenarios, token labels,
cross-attention's padding, tiny numbers, key_tokens without Y, the overflow message."""

from __future__ import annotations

import re

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.edit import EditError, add_token, remove_token, renumber, set_cell
from attn_tui.core.finite import finite_range
from attn_tui.core.matrices import computed_hint
from attn_tui.core.modes import set_cross_keeping_padding as cross_keeping_padding
from attn_tui.core.numfmt import fit_number
from attn_tui.core.scenario_io import ScenarioError, dumps, loads
from attn_tui.tui.history import History, same_scenario
from attn_tui.tui.state import State
from attn_tui.tui.widgets.palette import width_for


def test_identical_scenario_records_no_undo_step():
    h = History()
    s0 = State(builtin("lesson-pipeline"))
    s1 = s0.scale_by(1.1)
    h.record(s0, s1)
    s2 = s1.reset_scale()
    h.record(s1, s2)
    s3 = s2.reset_scale()  # c is already 1: a new Scenario object, the same scenario
    h.record(s2, s3)
    assert s3.scenario is not s2.scenario and same_scenario(s3.scenario, s2.scenario)
    assert len(h.past) == 2
    assert h.undo(s3).scenario.c == pytest.approx(1.1)


def test_same_scenario_sees_matrices_and_settings():
    s = builtin("lesson-pipeline")
    assert same_scenario(s, s.with_(X=s.X.copy()))
    assert not same_scenario(s, set_cell(s, "X", 0, 0, "0.5"))
    assert not same_scenario(s, s.with_(mask="none"))
    assert not same_scenario(s, add_token(s))


def test_new_token_is_labelled_by_position():
    qk = builtin("lesson-handcrafted")  # t1..t5
    assert add_token(qk, 4).tokens == ("t1", "t2", "t3", "t4", "t5", "t6")
    assert add_token(qk, 4).key_tokens in ((), ("t1", "t2", "t3", "t4", "t5", "t6"))
    pipe = builtin("lesson-pipeline")  # "t1 mat" .. "t5 was"
    assert add_token(pipe, 4).tokens == ("t1 mat", "t2 was", "t3 soft", "t4 it", "t5", "t6 was")
    assert remove_token(pipe, 2).tokens == ("t1 mat", "t2 was", "t3 it", "t4 was")
    assert renumber(("the", "t9", "cat", "t2 x")) == ("the", "t2", "cat", "t4 x")  # user labels kept


def test_cross_on_keeps_padding_and_says_so():
    s = builtin("lesson-pipeline").with_(padding=(1, 3))
    on, note = cross_keeping_padding(s, True)
    assert on.cross and on.padding == (1, 3) and "padding kept" in note
    off, note = cross_keeping_padding(on.with_(Y=on.Y[:2], key_tokens=on.key_tokens[:2], padding=(1,)), False)
    assert not off.cross and off.padding == (1,) and "padding kept" in note


def test_cross_drops_only_what_cannot_be_kept():
    """Y with 7 keys, X with 5 tokens, keys 2, 6 and 7 padded: turning cross-attention off
    makes the keys X's 5 tokens again, so padding 2 stays and 6, 7 are dropped, and said."""
    import numpy as np

    s = builtin("cross-attention")
    Y = np.vstack([s.Y, np.eye(s.d_model)[:4]])  # 7 key tokens
    s = s.with_(Y=Y, key_tokens=tuple(f"y{i + 1}" for i in range(7)), padding=(2, 6, 7))
    assert (s.T, s.T_k) == (5, 7)
    off, note = cross_keeping_padding(s, False)
    assert not off.cross and off.T_k == 5
    assert off.padding == (2,)
    assert "padding kept on key position 2" in note
    assert "padding of key position 6, 7 dropped" in note
    back, note = cross_keeping_padding(s.with_(padding=(1, 3)), False)  # nothing to drop
    assert back.padding == (1, 3) and "dropped" not in note


@pytest.mark.parametrize(
    "x, width, want",
    [(-1.23e-5, 6, "-1e-5"), (-1.23e-5, 5, "-1e-5"), (1.23e-5, 6, "1.2e-5"), (3e-9, 5, "3e-9"), (0.0, 5, "0.000")],
)
def test_tiny_numbers_keep_sign_and_magnitude(x, width, want):
    assert fit_number(x, width) == want and len(fit_number(x, width)) <= width


def test_tiny_numbers_fit_the_cell_width():
    import numpy as np

    for v in (np.array([[0.0, 1e-7, 9.9]]), np.array([[-1.23e-5, 0.5]]), np.array([[1e-100, 2.0]])):
        w = width_for(*finite_range(v))
        assert all(len(fit_number(float(x), w)) <= w for x in v.ravel())


def test_key_tokens_without_y_is_refused_naming_the_key():
    s = builtin("lesson-pipeline")
    text = dumps(s) + 'key_tokens = ["a", "b", "c", "d", "e"]\n'
    with pytest.raises(ScenarioError, match="key_tokens: given without Y"):
        loads(text, "x.toml")
    loads(dumps(builtin("cross-attention")))  # with Y: fine


def test_overflow_message_reads_as_a_sentence():
    s = builtin("lesson-pipeline").with_(dtype="float16")
    with pytest.raises(EditError) as err:
        set_cell(s, "X", 0, 0, "1e5")
    msg = str(err.value)
    assert "makes" not in msg
    assert re.search(r"X row 1, column 1: with 100000, [QKVS] overflows float16 \(largest finite 65504\)", msg)


@pytest.mark.parametrize(
    "name, word",
    [("S", "edit X, W_Q, W_K"), ("M", "m toggles"), ("A", "softmax"), ("O", "edit W_V"), ("Q", "edit X or W_Q")],
)
def test_computed_matrices_say_what_to_edit(name, word):
    msg = computed_hint(builtin("lesson-pipeline"), name)
    assert msg.startswith(f"{name} is computed") and word in msg

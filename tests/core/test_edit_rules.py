"""core.edit against a model written here: tokens, keys, padding and matrices as lists, edited
by position the way the docstrings say, and every refusal's message naming the position
(1-based), the range and the rule. Written to kill the mutants of core/edit.py
(scripts/mutation.sh): an off-by-one, a lost matrix, a wrong prefix or message fails.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from attn_tui.core import edit
from attn_tui.core.edit import EditError
from attn_tui.core.limits import EDIT_MAX
from attn_tui.core.scenario import Scenario
from tests import refusals

RNG = np.random.default_rng(5)


def qk_self(padding=(2, 3), key_tokens=("t1", "t2 b", "t3")):
    """Q/K scenario, T = T' = 3, d_k = 2, V typed (3 x 4)."""
    return Scenario(
        Q=RNG.integers(-3, 4, (3, 2)).astype(float),
        K=RNG.integers(-3, 4, (3, 2)).astype(float),
        V=RNG.integers(-3, 4, (3, 4)).astype(float),
        tokens=("t1", "t2 a", "t3"),
        key_tokens=key_tokens,
        padding=padding,
        mask="none",
    )


def cross(T_k=3, padding=(1, 3), key_tokens=None):
    """Cross-attention: X (2 x 3), Y (T_k x 3); keys labelled y1.. unless given."""
    return Scenario(
        X=RNG.standard_normal((2, 3)),
        Y=RNG.standard_normal((T_k, 3)),
        W_Q=RNG.standard_normal((3, 2)),
        W_K=RNG.standard_normal((3, 2)),
        W_V=RNG.standard_normal((3, 4)),
        tokens=("a", "b"),
        features=("u", "v", "w"),
        key_tokens=key_tokens if key_tokens is not None else tuple(f"y{i + 1}" for i in range(T_k)),
        padding=padding,
        mask="none",
    )


def inserted(a, at):
    rows = [list(r) for r in np.asarray(a)]
    rows.insert(at, [0.0] * np.asarray(a).shape[1])
    return np.array(rows)


def deleted(a, at):
    rows = [list(r) for r in np.asarray(a)]
    del rows[at]
    return np.array(rows)


refuses = partial(refusals.refuses, EditError)


# -- values and cells ------------------------------------------------------------------------
def test_parse_value_names_its_default_place_and_drops_the_sign_of_zero():
    refuses("value: 'abc' is not a number; try e.g. 2, -0.5 or 1e-3", edit.parse_value, "abc")
    assert not np.signbit(edit.parse_value("-0")) and not np.signbit(edit.parse_value("-0.0e5"))


def test_set_cell_bounds_on_a_matrix_that_is_not_square():
    s = cross()  # X is 2 x 3
    refuses("X row 3, column 1: outside X's 2x3 cells", edit.set_cell, s, "X", 2, 0, "1")
    refuses("X row 1, column 4: outside X's 2x3 cells", edit.set_cell, s, "X", 0, 3, "1")
    new = edit.set_cell(s, "X", 1, 2, 2.5)  # a float, not text
    want = s.X.copy()
    want[1, 2] = 2.5
    assert np.array_equal(new.X, want)
    refuses(
        "X row 2, column 3: 2000000.0 is too large; entries must satisfy |x| <= 1e+06", edit.set_cell, s, "X", 1, 2, 2e6
    )


def test_matrix_of_refuses_what_is_not_an_editable_matrix():
    refuses("tokens: this scenario has no editable matrix tokens", edit.matrix_of, cross(), "tokens")
    refuses("Q: this scenario has no editable matrix Q", edit.matrix_of, cross(), "Q")


# -- labels ------------------------------------------------------------------------------------
def test_rename_in_each_kind_and_its_refusals():
    s = cross(key_tokens=())  # cross-attention keys labelled k1.. by default
    assert edit.rename(s, "key_tokens", 1, "mid").key_tokens == ("k1", "mid", "k3")
    assert edit.rename(s, "tokens", 1, "x" * 24).tokens == ("a", "x" * 24)  # 24 characters fit
    refuses("token 2: 25 characters; labels are at most 24", edit.rename, s, "tokens", 1, "x" * 25)
    refuses("token 2: a label cannot be empty", edit.rename, s, "tokens", 1, "  ")
    refuses("token 3: outside 1..2", edit.rename, s, "tokens", 2, "z")
    refuses(
        "feature 1: contains the control character \\x07; labels are plain text", edit.rename, s, "features", 0, "a\x07"
    )
    refuses("things: unknown label kind; use tokens, features or key_tokens", edit.rename, s, "things", 0, "z")
    refuses("features: this scenario has no feature labels", edit.rename, qk_self(), "features", 0, "z")


# -- query tokens --------------------------------------------------------------------------------
def test_add_token_in_a_self_qk_scenario_moves_keys_values_and_padding():
    s = qk_self(padding=(1, 2, 3))
    new = edit.add_token(s, 1, "new")
    assert new.tokens == ("t1", "new", "t3 a", "t4")
    assert new.key_tokens == ("t1", "new", "t3 b", "t4")
    for name in ("Q", "K", "V"):
        assert np.array_equal(getattr(new, name), inserted(getattr(s, name), 1)), name
    assert new.padding == (1, 3, 4)  # keys 2 and 3 moved one on; key 1 stayed
    refuses("token 2: 25 characters; labels are at most 24", edit.add_token, s, 1, "y" * 25)


def test_add_token_refusals():
    s = qk_self()
    refuses("token 5: outside 1..4", edit.add_token, s, 4)
    full = Scenario(Q=np.zeros((EDIT_MAX, 1)), K=np.zeros((EDIT_MAX, 1)), mask="none")
    refuses(f"tokens: at most {EDIT_MAX} tokens", edit.add_token, full)
    assert edit.add_token(Scenario(Q=np.zeros((EDIT_MAX - 1, 1)), K=np.zeros((EDIT_MAX - 1, 1)))).T == EDIT_MAX


def test_remove_token_in_a_self_qk_scenario():
    s = qk_self(padding=(1, 3))
    new = edit.remove_token(s, 1)
    assert new.tokens == ("t1", "t2") and new.key_tokens == ("t1", "t2")
    for name in ("Q", "K", "V"):
        assert np.array_equal(getattr(new, name), deleted(getattr(s, name), 1)), name
    assert new.padding == (1, 2)
    refuses("token 4: outside 1..3", edit.remove_token, s, 3)
    one = Scenario(Q=[[1.0]], K=[[1.0]])
    refuses("tokens: cannot remove the last token; a sequence needs at least one", edit.remove_token, one, 0)
    assert edit.remove_token(Scenario(Q=[[1.0], [2.0]], K=[[1.0], [2.0]]), 0).T == 1


# -- key tokens (cross-attention) ---------------------------------------------------------------
def test_add_key_token_appends_a_zero_row_and_a_fresh_label():
    s = cross(key_tokens=("y1", "y3", "z"))
    new = edit.add_key_token(s)
    assert new.key_tokens == ("y1", "y3", "z", "y4")  # y4: the next free number, not a taken one
    assert np.array_equal(new.Y, inserted(s.Y, 3))
    assert edit.add_key_token(cross(key_tokens=("y4", "b", "c"))).key_tokens[-1] == "y5"
    assert edit.add_key_token(s, "new").key_tokens[-1] == "new"
    refuses("key token 4: a label cannot be empty", edit.add_key_token, s, "\t")
    refuses("Y: key tokens are added to Y, and only in cross-attention", edit.add_key_token, qk_self())
    refuses(f"key tokens: at most {EDIT_MAX}", edit.add_key_token, cross(T_k=EDIT_MAX, padding=()))
    assert edit.add_key_token(cross(T_k=EDIT_MAX - 1, padding=())).T_k == EDIT_MAX


def test_remove_key_token_renumbers_and_moves_the_padding():
    s = cross(T_k=4, padding=(1, 2, 4))
    new = edit.remove_key_token(s, 1)
    assert new.key_tokens == ("y1", "y2", "y3")
    assert np.array_equal(new.Y, deleted(s.Y, 1))
    assert new.padding == (1, 3)  # key 2 went with its padding; key 4 is now key 3
    refuses("Y: key tokens are removed from Y, and only in cross-attention", edit.remove_key_token, qk_self(), 0)
    refuses("key token 5: outside 1..4", edit.remove_key_token, s, 4)
    refuses(
        "key tokens: cannot remove the last key; Y needs at least one row",
        edit.remove_key_token,
        cross(T_k=1, padding=()),
        0,
    )
    assert edit.remove_key_token(cross(T_k=2, padding=()), 0).T_k == 1


# -- dimensions ------------------------------------------------------------------------------------
def resized(a, rows, cols):
    out = np.zeros((rows, cols))
    a = np.asarray(a)
    for i in range(min(rows, a.shape[0])):
        for j in range(min(cols, a.shape[1])):
            out[i, j] = a[i, j]
    return out


def test_set_dim_d_model_resizes_x_y_and_the_weights_and_names_new_features():
    s = cross(T_k=5)  # X 2 x 3, Y 5 x 3: more rows than columns
    s = s.with_(features=("u", "f3", "w"))
    new = edit.set_dim(s, "d_model", 5)
    assert new.features == ("u", "f3", "w", "f4", "f5")
    assert np.array_equal(new.X, resized(s.X, 2, 5)) and np.array_equal(new.Y, resized(s.Y, 5, 5))
    for w in ("W_Q", "W_K", "W_V"):
        assert np.array_equal(getattr(new, w), resized(getattr(s, w), 5, getattr(s, w).shape[1]))
    cut = edit.set_dim(s, "d_model", 2)
    assert np.array_equal(cut.Y, resized(s.Y, 5, 2)) and cut.features == ("u", "f3")


def test_set_dim_on_a_qk_scenario():
    s = qk_self()
    new = edit.set_dim(s, "d_k", 3)
    assert np.array_equal(new.Q, resized(s.Q, 3, 3)) and np.array_equal(new.K, resized(s.K, 3, 3))
    assert np.array_equal(edit.set_dim(s, "d_v", 2).V, resized(s.V, 3, 2))
    assert np.array_equal(edit.set_dim(s.with_(V=None), "d_v", 2).V, resized(np.eye(3), 3, 2))
    assert edit.set_dim(s, "d_k", EDIT_MAX).d_k == EDIT_MAX
    refuses("d_model: this scenario gives Q, K, V directly; it has no X", edit.set_dim, s, "d_model", 2)
    refuses("d_q: unknown dimension; use d_model, d_k or d_v", edit.set_dim, s, "d_q", 2)
    refuses(f"d_k: True must be a whole number from 1 to {EDIT_MAX}", edit.set_dim, s, "d_k", True)
    refuses(f"d_k: {EDIT_MAX + 1} must be a whole number from 1 to {EDIT_MAX}", edit.set_dim, s, "d_k", EDIT_MAX + 1)


def test_keys_of_a_qk_scenario_with_its_own_key_count_stay_put():
    """T = 2 queries, T' = 3 keys given directly: a query token added or removed moves no key."""
    s = Scenario(Q=[[1.0], [2.0]], K=[[1.0], [2.0], [3.0]], V=[[1.0], [2.0], [3.0]], mask="none", padding=(3,))
    for new in (edit.add_token(s, 0), edit.remove_token(s, 0)):
        assert np.array_equal(new.K, s.K) and np.array_equal(new.V, s.V) and new.padding == (3,)


def test_rename_a_key_of_a_qk_scenario_without_key_labels():
    s = Scenario(Q=[[1.0], [2.0], [3.0]], K=[[1.0], [2.0], [3.0]])  # keys labelled by the tokens
    assert edit.rename(s, "key_tokens", 1, "z").key_tokens == ("t1", "z", "t3")


def test_beyond_512_tokens_from_an_array_file_the_editor_adds_none():
    ones = np.ones((1, 1))
    big = Scenario(X=ones, Y=np.zeros((600, 1)), W_Q=ones, W_K=ones, W_V=ones, mask="none")
    refuses(
        "key tokens: at most 512 are added here; this scenario has 600, from an array file", edit.add_key_token, big
    )
    long = Scenario(Q=np.zeros((600, 1)), K=np.zeros((600, 1)), mask="none")
    refuses(
        "tokens: at most 512 tokens are added here; this scenario has 600, from an array file", edit.add_token, long
    )


class _CountedLabels(list):
    """Labels that count the membership tests made on them and stop a search that runs past
    ``bound`` of them: a label search that never ends fails here at once instead of hanging."""

    def __init__(self, labels, bound):
        super().__init__(labels)
        self.asked, self.bound = 0, bound

    def __contains__(self, label):
        self.asked += 1
        if self.asked > self.bound:
            raise AssertionError(f"searched {self.asked} labels for a free one among {list(self)}")
        return super().__contains__(label)


def test_fresh_label_search_stops_at_the_first_free_number():
    # _fresh tries len + 1, len + 2, ... and returns the first number no label has: here y3 is
    # taken, so it asks for y3 and y4 (two membership tests) and returns y4
    labels = _CountedLabels(["y1", "y3"], bound=2)
    assert edit._fresh(labels, "y") == "y4" and labels.asked == 2
    free = _CountedLabels(["f1", "f2"], bound=1)  # f3 is free: one test, no loop
    assert edit._fresh(free, "f") == "f3" and free.asked == 1

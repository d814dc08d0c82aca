"""Unit tests of attn_tui.core.edit: cells, labels, tokens, dimensions."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attn_tui.core import builtin
from attn_tui.core.edit import (
    BOUND,
    EditError,
    add_key_token,
    add_token,
    parse_value,
    remove_key_token,
    remove_token,
    rename,
    set_cell,
    set_dim,
)
from attn_tui.core.modes import set_cross


@pytest.fixture
def pipe():
    return builtin("lesson-pipeline")


@pytest.mark.parametrize(
    "text,value",
    [
        ("2", 2.0),
        (" -0.5 ", -0.5),
        ("1e-3", 1e-3),
        ("-0", 0.0),
        (str(BOUND), BOUND),
        ("+3", 3.0),
    ],
)
def test_parse_accepts_ascii_float_syntax(text, value):
    assert parse_value(text) == value


@pytest.mark.parametrize(
    "text,words",
    [
        ("abc", "not a number"),
        ("", "empty"),
        ("   ", "empty"),
        ("nan", "NaN"),
        ("inf", "infinite"),
        ("-inf", "infinite"),
        ("1e400", "infinite"),
        ("1e", "not a number"),
        ("--1", "not a number"),
        ("2e6", "too large"),
        ("0\x1f", "not a number"),
        ("\x1c1", "not a number"),
        ("1_000", "not a number"),  # float() takes it; the strict parser (core.numparse) does not
        ("\u20003", "not a number"),
        ("\u0661", "digits 0-9 only"),
    ],
)
def test_parse_refuses(text, words):
    with pytest.raises(EditError, match=words):
        parse_value(text, "X row 1, column 2")


def test_set_cell_recomputes(pipe):
    s = set_cell(pipe, "W_Q", 3, 0, "0")  # the pronoun no longer asks for a noun
    assert s.W_Q[3, 0] == 0 and pipe.W_Q[3, 0] == 2
    A = s.run().A
    assert np.allclose(A[3, :4], 0.25)  # row 4 falls back to a uniform average


def test_set_cell_names_the_cell(pipe):
    with pytest.raises(EditError, match=r"X row 2, column 3: 'abc' is not a number"):
        set_cell(pipe, "X", 1, 2, "abc")
    with pytest.raises(EditError, match="outside"):
        set_cell(pipe, "X", 9, 0, "1")
    with pytest.raises(EditError, match="no editable matrix Q"):
        set_cell(pipe, "Q", 0, 0, "1")


def test_overflow_refused_in_float16(pipe):
    s = pipe.with_(dtype="float16")
    with pytest.raises(EditError, match="overflows float16"):
        set_cell(s, "X", 0, 0, "1e5")
    assert set_cell(pipe, "X", 0, 0, "1e5").X[0, 0] == 1e5  # float64 takes it


def test_rename(pipe):
    s = rename(pipe, "tokens", 0, "  the  rug ")
    assert s.tokens[0] == "the rug"
    assert rename(pipe, "features", 5, "pos").features[5] == "pos"
    with pytest.raises(EditError, match="empty"):
        rename(pipe, "tokens", 0, "  ")
    with pytest.raises(EditError, match="outside"):
        rename(pipe, "tokens", 7, "x")
    # self-attention: renaming a key renames the token
    assert rename(pipe, "key_tokens", 1, "is").tokens[1] == "is"


def test_add_remove_token_self(pipe):
    s = add_token(pipe)
    assert s.T == 6 and s.X[5].tolist() == [0.0] * 6 and s.tokens[5] == "t6"
    assert np.allclose(s.run().A[:5, :5], pipe.run().A)  # causal: old rows unchanged
    back = remove_token(s, 5)
    assert np.array_equal(back.X, pipe.X)
    with pytest.raises(EditError, match="last token"):
        remove_token(builtin("lesson-pipeline").with_(X=pipe.X[:1], tokens=("a",)), 0)


def test_padding_follows_tokens(pipe):
    s = pipe.with_(padding=(2, 4))
    assert add_token(s, at=0).padding == (3, 5)
    assert remove_token(s, 1).padding == (3,)
    assert remove_token(s, 0).padding == (1, 3)


def test_add_remove_token_qk():
    s = builtin("lesson-handcrafted")
    t = add_token(s)
    assert t.Q.shape == (6, 4) and t.K.shape == (6, 4) and t.run().A.shape == (6, 6)
    assert remove_token(t, 0).T == 5


def test_cross_tokens(pipe):
    s, note = set_cross(pipe, True)
    assert s.cross and s.T_k == 5 and "mask" in note
    t = add_token(s)
    assert (t.T, t.T_k) == (6, 5)
    u = add_key_token(s)
    assert u.T_k == 6 and u.keys[-1] == "y6"
    assert remove_key_token(u, 0).T_k == 5
    with pytest.raises(EditError, match="cross-attention"):
        add_key_token(pipe)


@pytest.mark.parametrize("dim,n", [("d_model", 8), ("d_model", 3), ("d_k", 6), ("d_k", 1), ("d_v", 2), ("d_v", 7)])
def test_set_dim(pipe, dim, n):
    s = set_dim(pipe, dim, n)
    assert getattr(s, dim) == n
    tr = s.run()
    assert np.all(np.isfinite(tr.A))


def test_set_dim_new_cells_zero(pipe):
    s = set_dim(pipe, "d_k", 6)
    assert np.array_equal(s.W_Q[:, :4], pipe.W_Q) and not s.W_Q[:, 4:].any()
    assert len(set_dim(pipe, "d_model", 8).features) == 8
    v = set_dim(builtin("lesson-handcrafted"), "d_v", 3)  # implicit identity V made explicit
    assert np.array_equal(v.V, np.eye(5)[:, :3])
    with pytest.raises(EditError, match="whole number"):
        set_dim(pipe, "d_k", 0)
    with pytest.raises(EditError, match="no X"):
        set_dim(builtin("lesson-handcrafted"), "d_model", 3)


def test_unchanged_cell_is_same_scenario(pipe):
    assert set_cell(pipe, "X", 0, 0, "1.0") is pipe
    assert set_cell(pipe, "X", 0, 0, " 1 ") is pipe


def test_identity_v_becomes_explicit_when_edited():
    s = builtin("lesson-handcrafted")
    t = set_cell(s, "V", 0, 1, "0.5")
    assert t.V[0, 1] == 0.5 and t.V[1, 1] == 1.0 and t.run().O.shape == (5, 5)
    assert set_cell(s, "V", 2, 2, "1") is s  # unchanged identity: nothing to do


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-BOUND, max_value=BOUND, allow_nan=False))
def test_parse_roundtrips_every_allowed_float(x):
    assert parse_value(repr(x)) == x


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
@example("0\x1f")  # found by hypothesis: str.strip() removed \x1f, float() refuses it
@example("\x1c1")
@example("\u20003")  # a Unicode space float() strips; refused
@example("0\x85")
def test_parse_never_crashes_and_only_returns_allowed(text):
    try:
        x = parse_value(text)
    except EditError as exc:
        assert str(exc)
    else:
        assert np.isfinite(x) and abs(x) <= BOUND and x == float(text)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5), st.sampled_from(["d_model", "d_k", "d_v"]), st.integers(1, 9))
def test_token_and_dim_roundtrips(at, dim, n):
    s = builtin("lesson-pipeline")
    back = remove_token(add_token(s, at=at), at)
    assert np.array_equal(back.X, s.X) and back.tokens == s.tokens
    grown = set_dim(set_dim(s, dim, getattr(s, dim) + n), dim, getattr(s, dim))
    assert all(np.array_equal(getattr(grown, m), getattr(s, m)) for m in ("X", "W_Q", "W_K", "W_V"))

"""core.scenario: the shape facts, the computation and every refusal, word for word
(each message names the key, and the sizes involved, for the learner)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.scenario import Scenario

X = np.arange(12.0).reshape(3, 4) / 10  # T = 3, d_model = 4
WQ, WK, WV = np.ones((4, 2)), np.eye(4)[:, :2], np.eye(4)[:, :3]  # d_k = 2, d_v = 3


def projected(**kw):
    return Scenario(**{"X": X, "W_Q": WQ, "W_K": WK, "W_V": WV, **kw})


def test_shape_facts_of_a_projected_scenario():
    s = projected()
    assert (s.projected, s.cross, s.T, s.T_k, s.d_model, s.d_k, s.d_v) == (True, False, 3, 3, 4, 2, 3)
    assert s.tokens == ("t1", "t2", "t3") and s.features == ("f1", "f2", "f3", "f4")
    assert s.keys == s.tokens and s.key_tokens == ()
    assert s.value_features == ("f1", "f2", "f3")  # W_V copies the first d_v features' names
    assert s.scale == pytest.approx(1 / math.sqrt(2), rel=1e-15)
    assert s.with_(c=3.0, scaled=False).scale == 3.0 and s.with_(c=3.0).scale == pytest.approx(3 / math.sqrt(2))
    assert projected(W_V=np.ones((4, 6)), features=("a", "b", "c", "d")).value_features == tuple(
        f"v{j}" for j in range(1, 7)
    )  # more value columns than feature names: v1..v6
    Y = np.ones((5, 4))
    c = projected(Y=Y, mask="none")
    assert (c.cross, c.T, c.T_k) == (True, 3, 5) and c.keys == ("k1", "k2", "k3", "k4", "k5")
    assert projected(Y=Y, key_tokens=tuple("abcde"), mask="none").keys == tuple("abcde")


def test_shape_facts_of_a_direct_scenario():
    s = Scenario(Q=np.ones((2, 3)), K=np.ones((4, 3)))
    assert (s.projected, s.cross, s.T, s.T_k, s.d_model, s.d_k, s.d_v) == (False, False, 2, 4, None, 3, 4)
    Q, K, V = s.qkv()
    np.testing.assert_array_equal(Q, s.Q)
    np.testing.assert_array_equal(K, s.K)
    np.testing.assert_array_equal(V, np.eye(4))  # V defaults to the identity: O = A
    assert Scenario(Q=np.ones((2, 3)), K=np.ones((4, 3)), V=np.ones((4, 5))).d_v == 5
    assert s.keys == ("k1", "k2", "k3", "k4")  # no key labels given, T' != T: keys of their own, one label each
    assert Scenario(Q=np.ones((2, 3)), K=np.ones((4, 3)), key_tokens=tuple("wxyz")).keys == tuple("wxyz")


def test_qkv_projects_x_and_y():
    s = projected()
    Q, K, V = s.qkv()
    np.testing.assert_array_equal(Q, X @ WQ)
    np.testing.assert_array_equal(K, X @ WK)
    np.testing.assert_array_equal(V, X @ WV)
    Y = np.arange(20.0).reshape(5, 4)
    Q, K, V = projected(Y=Y, mask="none").qkv()
    np.testing.assert_array_equal(Q, X @ WQ)
    np.testing.assert_array_equal(K, Y @ WK)
    np.testing.assert_array_equal(V, Y @ WV)


def test_matrices_are_float64_and_read_only():
    s = Scenario(Q=[[1, 2]], K=[[3, 4]])
    assert s.Q.dtype == np.float64 and not s.Q.flags.writeable and s.V is None
    with pytest.raises(ValueError):
        s.Q[0, 0] = 5
    assert isinstance(s.tokens, tuple) and isinstance(Scenario(Q=[[1.0]], K=[[1.0]], padding=[1]).padding, tuple)
    assert Scenario(Q=[[1.0]], K=[[1.0]], c=2).c == 2.0 and type(Scenario(Q=[[1.0]], K=[[1.0]], c=2).c) is float


def test_blocked_padding_counts_from_one():
    s = projected(mask="none", padding=(1, 3))
    np.testing.assert_array_equal(s.blocked(), [[True, False, True]] * 3)
    w = projected(mask="window", window=1)
    np.testing.assert_array_equal(w.blocked(), ~np.eye(3, dtype=bool))
    tr = projected(fill="min", dtype="float32").run()
    assert tr.A.dtype == np.float32 and tr.M[0, 1] == np.finfo(np.float32).min
    assert tr.scale == pytest.approx(1 / math.sqrt(2))


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"W_Q": None}, "W_Q: missing; a scenario with X needs W_Q, W_K and W_V"),
        ({"W_K": None}, "W_K: missing; a scenario with X needs W_Q, W_K and W_V"),
        ({"W_V": None}, "W_V: missing; a scenario with X needs W_Q, W_K and W_V"),
        ({"Q": np.ones((3, 2))}, "Q: give either X with W_Q/W_K/W_V or Q/K/V, not both"),
        ({"K": np.ones((3, 2))}, "K: give either X with W_Q/W_K/W_V or Q/K/V, not both"),
        ({"V": np.ones((3, 2))}, "V: give either X with W_Q/W_K/W_V or Q/K/V, not both"),
        ({"W_Q": np.ones((5, 2))}, "W_Q: has 5 rows, but X's d_model needs 4"),
        ({"W_K": np.ones((5, 2))}, "W_K: has 5 rows, but X's d_model needs 4"),
        ({"W_K": np.ones((4, 3))}, "W_K: has 3 columns, but W_Q's d_k needs 2"),
        ({"W_V": np.ones((2, 3))}, "W_V: has 2 rows, but X's d_model needs 4"),
        ({"Y": np.ones((2, 3))}, "Y: has 3 columns, but X's d_model needs 4"),
        ({"features": ("a", "b")}, "features: 2 labels for 4 rows/columns"),
        ({"features": ("a", "b", "c", 4)}, "features: labels must be strings"),
        ({"tokens": ("a",)}, "tokens: 1 labels for 3 rows/columns"),
        (
            {"Y": np.ones((2, 4)), "key_tokens": ("a", "b", "c"), "mask": "none"},
            "key_tokens: 3 labels for 2 rows/columns",
        ),
        ({"mask": "diagonal"}, "mask: unknown mask 'diagonal'; use one of causal, none, window"),
        ({"fill": "0"}, 'fill: unknown fill \'0\'; use -1e9, "-inf" or "min"'),
        ({"dtype": "int8"}, "dtype: unknown dtype 'int8'; use float64, float32, float16"),
        ({"scaled": 1}, "scaled: must be true or false, got 1"),
    ],
)
def test_each_refusal_word_for_word(kw, message):
    with pytest.raises(ValueError) as err:
        projected(**kw)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "kw, start",
    [
        ({"mask": "window"}, "window: a sliding window needs a whole width >= 1, got "),
        ({"mask": "window", "window": 0}, "window: a sliding window needs a whole width >= 1, got 0"),
        ({"padding": (0,)}, "padding: key position 0 is outside 1..3 (positions count from 1)"),
        ({"padding": (4,)}, "padding: key position 4 is outside 1..3 (positions count from 1)"),
        ({"padding": (True,)}, "padding: key position True is outside 1..3"),
        ({"padding": (1.0,)}, "padding: key position 1.0 is outside 1..3"),
        ({"c": 0.0}, "c: the scale multiplier must be a positive finite number, got 0"),
        ({"c": -1.0}, "c: the scale multiplier must be a positive finite number, got -1"),
        ({"c": float("inf")}, "c: the scale multiplier must be a positive finite number, got inf"),
        ({"c": True}, "c: the scale multiplier must be a positive finite number, got True"),
        ({"c": "2"}, "c: the scale multiplier must be a positive finite number, got "),
        ({"c": 10**400}, "c: the scale multiplier must be a positive finite number, got "),
    ],
)
def test_each_refusal_names_the_key_and_the_value(kw, start):
    with pytest.raises(ValueError) as err:
        projected(**kw)
    assert str(err.value).startswith(start), str(err.value)


def test_refusals_of_a_direct_scenario():
    for kw, message in [
        ({"Q": np.ones((2, 3))}, "X: missing; a scenario needs X with W_Q/W_K/W_V, or Q and K"),
        ({"K": np.ones((2, 3))}, "X: missing; a scenario needs X with W_Q/W_K/W_V, or Q and K"),
        (
            {"Q": np.ones((2, 3)), "K": np.ones((2, 3)), "Y": np.ones((2, 3))},
            "Y: only a scenario with X can take keys from a second sequence Y",
        ),
        ({"Q": np.ones((2, 3)), "K": np.ones((2, 4))}, "K: has 4 columns, but Q's d_k needs 3"),
        (
            {"Q": np.ones((2, 3)), "K": np.ones((2, 3)), "V": np.ones((3, 1))},
            "V: has 3 rows, but K (one value per key) needs 2",
        ),
    ]:
        with pytest.raises(ValueError) as err:
            Scenario(**kw)
        assert str(err.value) == message
    with pytest.raises(ValueError, match=r"^Q: row 1, column 2 is nan"):
        Scenario(Q=[[1.0, np.nan]], K=[[1.0, 1.0]])


def test_valid_edges_are_accepted():
    assert projected(mask="window", window=3).window == 3
    assert projected(padding=(1, 2, 3)).padding == (1, 2, 3)
    assert projected(padding=(np.int64(2),)).padding == (2,)
    assert projected(c=1e-300).c == 1e-300 and projected(c=7).c == 7.0
    assert projected(scaled=False).scaled is False


def test_key_labels_are_checked_without_y_and_given_with_y():
    with pytest.raises(ValueError) as err:
        Scenario(Q=np.ones((2, 3)), K=np.ones((4, 3)), key_tokens=("a",))
    assert str(err.value) == "key_tokens: 1 labels for 4 rows/columns"
    assert projected(Y=np.ones((2, 4)), mask="none").key_tokens == ("k1", "k2")


def test_the_widest_window_is_max_t():
    from attn_tui.core.limits import MAX_T  # the report's largest T (array files); the explorer's door refuses > 512

    assert projected(mask="window", window=MAX_T).window == MAX_T
    with pytest.raises(ValueError) as err:
        projected(mask="window", window=MAX_T + 1)
    assert str(err.value) == f"window: {MAX_T + 1} is wider than any sequence (at most {MAX_T})"


def test_focus_row_counts_from_one_and_stays_in_range():
    assert projected().focus_row is None
    assert projected(focus_row=2).focus_row == 2 and projected(focus_row=np.int64(3)).focus_row == 3
    assert projected(focus_row=10).focus_row == 3  # T = 3: kept in range
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(ValueError) as err:
            projected(focus_row=bad)
        assert str(err.value) == f"focus_row: the row to open on must be a whole query position from 1, got {bad!r}"

"""Issue 10: one set of rules for every door. A file, the cell editor and the random form
apply the same limits (core.limits) where they overlap, with the same words; what a door
accepts reopens; a UTF-8 BOM is accepted; whitespace in labels is collapsed by both."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import edit as E
from attn_tui.core import limits as L
from attn_tui.core import modes
from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.core.random_scenario import LIMITS, check_params, random_scenario
from attn_tui.core.safe_read import structure_problem
from attn_tui.core.scenario import Scenario
from attn_tui.core.scenario_io import ScenarioError, dumps, resolve, save

QK = "Q = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\n"


def opened(tmp_path, text, name="s.toml"):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return resolve(str(f))


def refusal(tmp_path, text):
    with pytest.raises(ScenarioError) as err:
        opened(tmp_path, text)
    return str(err.value)


def test_the_editor_uses_the_cores_limits():
    assert (E.BOUND, E.EDIT_MAX, E.MAX_LABEL) == (L.BOUND, L.EDIT_MAX, L.MAX_LABEL) == (1e6, 512, 24)
    assert LIMITS["T"] == (1, L.EDIT_MAX)
    assert (L.C_MIN, L.C_MAX) == (1e-3, 1e3)


@pytest.mark.parametrize("name", list(BUILTINS))
def test_every_builtin_passes_every_door(name):
    s = builtin(name)
    assert L.admit(s) is s


def test_a_utf8_bom_is_accepted(tmp_path):
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf" + ('title = "bom"\n' + QK).encode("utf-8"))
    assert resolve(str(f)).title == "bom"


def test_the_bound_is_the_same_for_a_file_and_the_editor(tmp_path):
    at = opened(tmp_path, QK.replace("[0.0, 1.0]]\nK", "[0.0, 1e6]]\nK"))
    assert at.Q[1, 1] == 1e6
    msg = refusal(tmp_path, QK.replace("[0.0, 1.0]]\nK", "[0.0, 1000001.0]]\nK"))
    assert "Q: row 2, column 2" in msg and "|x| <= 1e+06" in msg
    with pytest.raises(E.EditError, match=r"\|x\| <= 1e\+06"):
        E.set_cell(builtin("lesson-handcrafted"), "Q", 1, 1, "1000001")


def test_an_overflow_is_refused_alike_by_a_file_and_the_editor(tmp_path):
    """The editor's refusal and the file's come from the same check (limits.compute_problem)."""
    s = builtin("lesson-pipeline").with_(dtype="float16")
    with pytest.raises(E.EditError) as err:
        E.set_cell(s, "X", 0, 0, "1e5")
    assert "K overflows float16 (largest finite 65504)" in str(err.value)  # X's noun feature * W_K's 3
    X = s.X.copy()
    X[0, 0] = 1e5
    bad = s.with_(X=X)
    assert L.compute_problem(bad)[:3] == ("K", "X row 1 and W_K column 1", "float16")
    msg = refusal(tmp_path, dumps(bad))
    assert "X row 1 and W_K column 1: K overflows float16 (largest finite 65504)" in msg
    assert E.overflow(bad) == "K overflows float16 (largest finite 65504)" and E.overflow(s) is None


@pytest.mark.parametrize(
    "raw, where", [("a\x1b[31m", "\\x1b"), ("ding\x07", "\\x07"), ("", "cannot be empty"), ("x" * 25, "at most 24")]
)
def test_a_bad_label_is_refused_alike_by_a_file_and_the_editor(tmp_path, raw, where):
    s = builtin("lesson-handcrafted")
    with pytest.raises(E.EditError) as err:
        E.rename(s, "tokens", 0, raw)
    text = dumps(s.with_(tokens=(raw, *s.tokens[1:])))
    msg = refusal(tmp_path, text)
    assert where in str(err.value) and where in msg
    assert str(err.value).split(": ", 1)[1] == msg.split("tokens: label 1: ", 1)[1]


def test_whitespace_in_a_label_is_collapsed_alike(tmp_path):
    s = builtin("lesson-handcrafted")
    assert E.rename(s, "tokens", 0, "a\nb\t c").tokens[0] == "a b c"
    text = dumps(s.with_(tokens=("a\nb\t c", *s.tokens[1:]), title="two\nlines"))
    got = opened(tmp_path, text)
    assert got.tokens[0] == "a b c" and got.title == "two lines"


@pytest.mark.parametrize("c, ok", [(1e-3, True), (1e3, True), (9.99e-4, False), (1000.5, False)])
def test_c_is_held_to_the_knobs_range(tmp_path, c, ok):
    text = QK + f"c = {c!r}\n"
    if ok:
        assert opened(tmp_path, text).c == c
    else:
        assert "0.001 to 1000" in refusal(tmp_path, text)


def test_a_window_left_from_an_earlier_mask_is_not_saved(tmp_path):
    s = modes.set_mask(modes.set_mask(builtin("lesson-pipeline"), "window", 2), "causal")
    assert s.window == 2 and s.mask == "causal"
    assert "window" not in dumps(s)
    assert opened(tmp_path, dumps(s)).mask == "causal"
    w = modes.set_mask(s, "window", 3)
    assert opened(tmp_path, dumps(w), "w.toml").window == 3


def test_the_random_form_says_one_short_line_for_huge_input():
    for value in ("9" * 5000, "1" + "0" * 400, 10**400):
        with pytest.raises(E.EditError) as err:
            check_params(T=value)
        msg = str(err.value)
        assert msg.startswith("T: ") and "\n" not in msg and len(msg) < 120, msg
    with pytest.raises(E.EditError, match="unknown parameter"):
        check_params(**{"\x1bx": 1})


def test_a_random_scenario_passes_every_door_and_reopens(tmp_path):
    s = random_scenario(T=512, d_model=8, d_k=4, d_v=4, seed=3)
    assert L.admit(s) is s
    back = resolve(str(save(s, tmp_path / "r.toml")))
    assert back.X.tobytes() == s.X.tobytes()


@pytest.mark.long
@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
def test_the_largest_scenario_the_app_can_make_fits_the_file_limit():
    rng = np.random.default_rng(0)
    big = [-(np.abs(rng.standard_normal((512, 512))) + 1) * 1.2345e-5 for _ in range(5)]  # longest reprs
    s = Scenario(X=big[0], Y=big[1], W_Q=big[2], W_K=big[3], W_V=big[4], mask="none")
    text = dumps(s)
    assert len(text.encode("utf-8")) < L.MAX_FILE_BYTES
    assert structure_problem(text) is None  # nor too many lists, commas or strings
    labelled = dumps(
        Scenario(
            Q=big[0],
            K=big[1],
            V=big[2],
            mask="none",
            title="=,[" * 60,
            tokens=tuple(f"[t{i}],=" for i in range(512)),
            key_tokens=tuple(f"k{i}" for i in range(512)),
        )
    )
    assert structure_problem(labelled) is None


@pytest.mark.parametrize(
    "kw, word",
    [({"c": 10**400}, "c"), ({"window": 10**30, "mask": "window"}, "window"), ({"padding": (10**400,)}, "padding")],
)
def test_the_scenario_itself_refuses_huge_integers_with_one_short_line(kw, word):
    with pytest.raises(ValueError) as err:
        builtin("lesson-handcrafted").with_(**kw)
    msg = str(err.value)
    assert msg.startswith(f"{word}: ") and len(msg) < 150, msg


def test_printable_escapes_every_control_character():
    assert L.printable("a\x1b[31m\x07\n\x9b\x7fb") == "a\\x1b[31m\\x07\\n\\x9b\\x7fb"
    assert L.printable("plain é → ok") == "plain é → ok"

"""core.scenario_io's refusals, one per rule, each message in full (the file, the key, the row
and column, what is wrong and what to do); the messages of tomllib and int() quoted are
produced here by those libraries. Written to kill the mutants of core/scenario_io.py
(scripts/mutation.sh).
"""

from __future__ import annotations

import errno
import os
import tomllib

import numpy as np
import pytest

from attn_tui.core import scenario_io, scenario_write
from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.core.scenario_io import KEYS, ScenarioError, dumps, loads, resolve
from tests import refusals

QK = "Q = [[1.0], [2.0]]\nK = [[1.0], [2.0]]\n"
SIZES = "sizes (T, T', d_model, d_k, d_v) are at most 512"


def refuses(message, text, *source):
    refusals.refuses(ScenarioError, message, loads, text, *source)


@pytest.mark.parametrize(
    "text, message",
    [
        ("Q = [[true]]\nK = [[1.0]]", "Q: row 1, column 1 is True, not a number"),
        (
            "Q = [[1" + "0" * 400 + "]]\nK = [[1.0]]",
            "Q: row 1, column 1 is an integer of 401 digits, beyond float64; entries must be finite",
        ),
        ("Q = [[1.0, inf]]\nK = [[1.0, 1.0]]", "Q: row 1, column 2 is inf; entries must be finite"),
        ("Q = [" + "[0.0]," * 513 + "]\nK = [[1.0]]", f"Q: 513 rows; {SIZES}"),
        ("Q = [[" + "0.0," * 513 + "]]\nK = [[1.0]]", f"Q: 513 columns; {SIZES}"),
        (
            "Q = [\n  [1.0, 1e-400],\n]\nK = [[1.0, 1.0]]",
            "Q: '1e-400' (line 2); float64 would read it as 0 (its smallest number is 4.9e-324); write 0 for zero",
        ),
        (
            QK + "c = -2.5e-999",
            "c: '-2.5e-999' (line 3); float64 would read it as 0 (its smallest number is 4.9e-324); write 0 for zero",
        ),
        (
            'title = "about 1e-400"\n' + QK + "c = 1e-400",
            "c: '1e-400' (line 4); float64 would read it as 0 (its smallest number is 4.9e-324); write 0 for zero",
        ),
        (QK + "wings = 2", f"wings: unknown key; known keys: {', '.join(KEYS)}"),
        (QK + "padding = 3", "padding: must be a list of whole key positions, e.g. [1, 3], got 3"),
        (QK + "mask = 1", "mask: must be a string, got 1"),
        (QK + 'mask = "window"\nwindow = 1.5', "window: must be a whole number, got 1.5"),
        (QK + 'mask = "window"\nwindow = true', "window: must be a whole number, got True"),
        (QK + 'focus_row = "a"', "focus_row: must be a whole number, got 'a'"),
        (QK + "focus_row = 3", "focus_row: 3 is past the last query row (2)"),
        (
            QK + "window = 2",
            "window: given with mask = 'causal'; a width applies only to mask = \"window\" "
            '(remove window, or set mask = "window")',
        ),
        (
            QK + 'mask = "none"\nwindow = 2',
            "window: given with mask = 'none'; a width applies only to "
            'mask = "window" (remove window, or set mask = "window")',
        ),
        (
            'X = [[1.0]]\nW_Q = [[1.0]]\nW_K = [[1.0]]\nW_V = [[1.0]]\nkey_tokens = ["a"]',
            "key_tokens: given without Y; with X the keys are the tokens themselves, so remove key_tokens, "
            "or add Y (one row per key token) for cross-attention",
        ),
    ],
)
def test_each_refusal_names_the_key_and_the_rule(text, message):
    refuses(f"<string>: {message}", text)


def test_what_is_accepted_at_the_edges():
    tiny = loads("Q = [[0e-400, 1e-320, 5e-324]]\nK = [[1.0, 1.0, 1.0]]").Q  # zero written small; subnormals
    assert list(tiny[0]) == [0.0, float("1e-320"), float("5e-324")] and tiny[0, 2] > 0
    assert loads(QK + 'fill = "-1e9"').fill == "-1e9"
    assert loads(QK + "fill = -1e9").fill == "-1e9"
    assert loads(QK + "focus_row = 2").focus_row == 2


def test_the_parser_s_own_refusals(monkeypatch):
    refuses("f.toml: a: brackets nest more than 16 deep (line 1); a matrix needs two", "a = " + "[" * 17, "f.toml")
    bad = "a = "
    with pytest.raises(tomllib.TOMLDecodeError) as e:
        tomllib.loads(bad)
    refuses(f"<string>: not valid TOML: {e.value}", bad)
    digits = "1" * 5000
    with pytest.raises(ValueError) as e:
        int(digits)
    refuses(f"<string>: not valid TOML: {str(e.value).split(';')[0]}", f"a = {digits}")
    monkeypatch.setattr(scenario_io, "structure_problem", lambda text: None)  # past the structure check
    refuses("<string>: nested too deeply to read", "a = " + "[" * 5000 + "]" * 5000)


def test_resolve_names_what_it_could_not_find_or_admit(tmp_path):
    with pytest.raises(ScenarioError) as e:
        resolve("nonesuch")
    assert str(e.value) == f"nonesuch: no such file, and no built-in of that name (built-ins: {', '.join(BUILTINS)})"
    long = "x" * 5000  # no suffix, and the OS cannot even look it up: load says why
    with pytest.raises(ScenarioError) as e:
        resolve(long)
    assert str(e.value) == f"{long}: cannot read ({os.strerror(errno.ENAMETOOLONG)})"
    f = tmp_path / "big_c.toml"
    f.write_text(QK + "c = 5000.0")
    with pytest.raises(ScenarioError) as e:
        resolve(f)
    assert str(e.value) == (
        f"{f}: c: the scale multiplier must be a number from 0.001 to 1000 (the knob's range), got 5000.0"
    )


def test_writing_toml():
    assert scenario_write.toml_str('a"\\\x7f\x1fé') == '"a\\"\\\\\\u007F\\u001Fé"'
    s = builtin("lesson-pipeline").with_(key_tokens=("k1", "k2", "k3", "k4", "k5"))
    text = dumps(s)
    assert "key_tokens" not in text  # self-attention: the keys are the tokens; a file refuses them
    assert loads(text).tokens == s.tokens
    qk = builtin("lesson-handcrafted").with_(key_tokens=("a", "b", "c", "d", "e"))
    assert loads(dumps(qk)).key_tokens == ("a", "b", "c", "d", "e")


def test_array_files_take_the_large_limits_only_when_asked(tmp_path, monkeypatch):
    f = tmp_path / "long.npz"
    np.savez(f, Q=np.zeros((600, 1)), K=np.zeros((600, 1)))
    for fn in (scenario_io.load, resolve):
        with pytest.raises(ScenarioError):
            fn(f)  # the explorer's and the editor's door: at most 512 tokens
        assert fn(f, large=True).T == 600
    monkeypatch.setattr(scenario_io, "MAX_ARRAY_FILE_BYTES", 100)
    with pytest.raises(ScenarioError) as e:
        scenario_io.load(f, large=True)
    assert str(e.value) == f"{f}: larger than 0 MiB; an array file is at most that"

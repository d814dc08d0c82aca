"""Issue 10: exit codes tell the truth (a UI crash is non-zero), and `report` never writes a
raw ESC/BEL from a title, a label or a file's name to the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

from attn_tui import cli
from attn_tui.cli import explorer
from attn_tui.core.builtins import builtin
from attn_tui.core.scenario import Scenario
from attn_tui.core.scenario_io import dumps
from attn_tui.report.text import scenario_text

RAW = ("\x1b", "\x07", "\x9b")


@pytest.fixture
def fake_app(monkeypatch):
    """A stand-in explorer whose run() ends with the return code the test sets."""
    state = {"code": None, "has_code": True}

    class AttentionApp:
        def __init__(self, scenario=None, session=None):
            self.session = session  # cli's session keeper (tui/session.py), on a folder of the test's own

        def run(self):
            if state["has_code"]:
                self.return_code = state["code"]

    monkeypatch.setitem(sys.modules, "attn_tui.tui.app", types.SimpleNamespace(AttentionApp=AttentionApp))
    monkeypatch.setattr(explorer, "limit_blas", lambda app: None)  # the stand-in has no State to judge by
    monkeypatch.setattr(explorer, "need_terminal", lambda: None)  # pytest's stdin and stdout are no terminal
    return state


@pytest.mark.parametrize("code, has_code, want", [(1, True, 1), (None, True, 0), (0, True, 0), (None, False, 0)])
def test_run_exits_with_the_apps_return_code(fake_app, code, has_code, want):
    fake_app.update(code=code, has_code=has_code)
    assert cli.main([]) == want
    assert cli.main(["--scenario", "lesson-handcrafted"]) == want


def test_report_escapes_control_characters_of_titles_and_labels():
    s = Scenario(
        title="\x1b]0;pwned\x07 title\x9b2J",
        tokens=("a\x1b[31m", "b\x07"),
        Q=[[1.0, 0.0], [0.0, 1.0]],
        K=[[1.0, 0.0], [0.0, 1.0]],
    )
    out = scenario_text(s, "name\x1b[2J.toml")
    assert not any(ch in out for ch in RAW)
    assert "\\x1b]0;pwned\\x07 title\\x9b2J" in out.splitlines()[0]
    assert "tokens: a\\x1b[31m, b\\x07" in out and "scenario: name\\x1b[2J.toml" in out


def test_report_of_a_file_whose_name_has_esc_and_bel(tmp_path):
    f = tmp_path / "evil\x1b[2J\x07.toml"
    f.write_text(dumps(builtin("lesson-handcrafted")), encoding="utf-8")
    res = subprocess.run(
        [sys.executable, "-m", "attn_tui", "report", "--scenario", str(f)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert res.returncode == 0 and res.stderr == ""
    assert not any(ch in res.stdout for ch in RAW)
    assert "evil\\x1b[2J\\x07.toml" in res.stdout


def test_report_of_a_file_whose_name_is_not_utf8(tmp_path):
    """Its bytes reach Python as lone surrogates; a strict UTF-8 stdout could not write them."""
    name = "caf\udce9.toml"  # b"caf\xe9.toml" as os.fsdecode gives it
    f = tmp_path / name
    f.write_text(dumps(builtin("lesson-handcrafted")), encoding="utf-8")
    res = subprocess.run(
        [sys.executable, "-X", "utf8=0", "-m", "attn_tui", "report", "--scenario", str(f)],
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert res.returncode == 0 and res.stderr == b"", res.stderr[-500:]
    assert b"scenario: " + str(tmp_path).encode() + b"/caf\\udce9.toml" in res.stdout

"""Packaging: the wheel carries every file the package needs besides its Python (the .tcss the
screens load by CSS_PATH), the version lives in one place (attn_tui.__version__, read by
pyproject's dynamic version) and `attn-tui --version` prints it. A clean venv installed from
the wheel runs `attn-tui report`: scripts/check_wheel.sh, run by .ci/run (it fetches the
dependencies, so it is not a unit test)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import attn_tui

ROOT = Path(__file__).resolve().parent.parent


def package_files() -> set[str]:
    """Every file of the attn_tui package in the work tree, bytecode left out."""
    pkg = ROOT / "attn_tui"
    return {
        p.relative_to(ROOT).as_posix()
        for p in pkg.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_wheel_carries_every_file_of_the_package(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    (wheel,) = tmp_path.glob("attn_tui-*.whl")
    assert wheel.name.startswith(f"attn_tui-{attn_tui.__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(package_files() - names)
    assert not missing, f"not in the wheel: {missing}"
    assert {n for n in names if n.endswith(".tcss")} >= {"attn_tui/tui/app.tcss", "attn_tui/tui/screens/lessons.tcss"}
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "attn-tui = attn_tui.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_version_in_one_place():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "attn_tui.__version__"}
    assert importlib.metadata.version("attn-tui") == attn_tui.__version__


def test_version_flag_matches_the_package():
    r = subprocess.run([sys.executable, "-m", "attn_tui", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert r.stdout.strip() == f"attn-tui {importlib.metadata.version('attn-tui')}"


def test_help_lists_every_command_in_one_line_each():
    """`attn-tui --help` (on a wide terminal): every subcommand on one line with its help."""
    import argparse
    import os

    from attn_tui.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    entries = {a.dest: a.help for a in sub._choices_actions}
    assert set(entries) == set(sub.choices) and {"report", "serve"} <= set(entries)
    env = dict(os.environ, COLUMNS="250")
    r = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--help"], capture_output=True, text=True, timeout=60, env=env
    )
    lines = [line.split() for line in r.stdout.splitlines()]
    for name, text in entries.items():
        assert text and "\n" not in text, name
        assert [name, *text.split()] in lines, f"{name}: not one line of --help"


def test_oracle_extra_and_its_skip_reason(monkeypatch):
    """The torch oracle is the extra .[oracle], pinned as .ci/run installs it; without torch its
    tests skip saying how to get it."""
    import re

    import pytest

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    ci = (ROOT / ".ci" / "run").read_text()
    (pin,) = [p for p in extras["oracle"] if p.startswith("torch")]
    assert re.fullmatch(r"torch==[\d.]+", pin)
    assert 'grep -m1 -oE "torch==[0-9.]+" pyproject.toml' in ci  # .ci/run installs the first pin in the file:
    assert re.search(r"torch==[\d.]+", (ROOT / "pyproject.toml").read_text()).group() == pin  # the oracle's
    monkeypatch.delenv("ATTN_MUTATION", raising=False)
    from tests.core import test_core_oracle

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(pytest.skip.Exception) as skipped:
        test_core_oracle.need_torch()
    assert "torch not installed: pip install -e '.[oracle]'" in skipped.value.msg

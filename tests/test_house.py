"""The house's rules that reading the files checks: the package keeps nothing for its tests, the
core and report tests never import the app, and the view tests never start it (each folder of
tests is one layer's); the package's root holds only its entry points, and no function is longer
than a screen (50 lines)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attn_tui"
TESTS = ROOT / "tests"

# What a test hook's comment says: "(tests wait on it)", "kept so tests can read", "for tests".
HOOK = re.compile(r"tests? (wait|waits|read|reads|can read) |so (the )?tests |for (the )?tests\b|test hook", re.I)
IMPORTS_TUI = re.compile(r"^\s*(from attn_tui\.tui\b|import attn_tui\.tui\b|from attn_tui import .*\btui\b)", re.M)
STARTS_APP = re.compile(r"\brun_test\(|\.run_async\(|\bAttentionApp\(")


def _files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_the_rules_find_what_they_look_for():
    """Each pattern matches the line it is written against (else the tests below pass on nothing)."""
    assert HOOK.search("self.computed = None  # the key of the last layer drawn (tests wait on it)")
    assert HOOK.search("self.shown = renderable  # kept so tests can read what is on screen")
    assert not HOOK.search("the tests build one too")  # saying who else builds one is no hook
    assert IMPORTS_TUI.search("    from attn_tui.tui.keys import KEYS\n")
    assert not IMPORTS_TUI.search('sys.modules["attn_tui.tui.app"] = stub\n')  # a stand-in, not an import
    assert STARTS_APP.search("    async with app.run_test(size=SIZE) as pilot:")
    assert _files(PACKAGE) and _files(TESTS / "core") and _files(TESTS / "views")


def test_no_attribute_is_kept_for_the_tests():
    """Tests read what is on screen, the app's state and public Textual API; the package keeps
    nothing only they read."""
    hits = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in _files(PACKAGE)
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if HOOK.search(line)
    ]
    assert not hits, hits


@pytest.mark.parametrize("folder", ["core", "report"])
def test_core_and_report_tests_do_not_import_the_app(folder):
    hits = [str(p.relative_to(ROOT)) for p in _files(TESTS / folder) if IMPORTS_TUI.search(p.read_text())]
    assert not hits, f"tests/tui is where a test of the app goes: {hits}"


def test_view_tests_never_start_the_app():
    hits = [str(p.relative_to(ROOT)) for p in _files(TESTS / "views") if STARTS_APP.search(p.read_text())]
    assert not hits, f"a view is a function of the State; a test that runs the app goes in tests/tui: {hits}"


MAX_FUNCTION_LINES = 50  # a function read in one screen; a longer one is split where its steps are


def long_functions(path: Path, root: Path = ROOT) -> list[str]:
    """Each function or method of ``path`` longer than MAX_FUNCTION_LINES (decorators and docstring
    counted), as "file:line name (N lines)"."""
    return [
        f"{path.relative_to(root)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_function_of_the_package_is_longer_than_a_screen():
    hits = [hit for p in _files(PACKAGE) for hit in long_functions(p)]
    assert not hits, hits


def test_the_long_function_rule_counts_lines(tmp_path):
    """The rule itself: 50 lines pass, 51 fail, a method counts as a function."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    ok, long = tmp_path / "ok.py", tmp_path / "long.py"
    ok.write_text(f"def f():\n{body}\n")
    long.write_text(f"class C:\n    def g(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n        y = 0\n")
    assert long_functions(ok, tmp_path) == []
    assert long_functions(long, tmp_path) == ["long.py:2 g (51 lines)"]


def test_the_root_of_the_package_holds_only_its_entry_points():
    """attn_tui/ keeps __init__ and __main__; every other module lives in the package of its layer
    (core, report, tui, cli, serve, capture, bench)."""
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]

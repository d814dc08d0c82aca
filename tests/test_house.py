"""The house's rules that reading the files checks: the package keeps nothing for its tests, the
core and report tests never import the app, and the view tests never start it (each folder of
tests is one layer's)."""

from __future__ import annotations

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

"""One name, one thing: no two classes of the explorer (attn_tui/tui) share a name (there were two
StatusLine, two Page and two Part), and one function is called fmt (core/numfmt.py's number in a width is
fit_number; the report's rprint part is fmt_part)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import attn_tui

ROOT = Path(attn_tui.__file__).parent


def _top_level(kind) -> dict[str, list[str]]:
    found = defaultdict(list)
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, kind):
                found[node.name].append(str(path.relative_to(ROOT)))
    return found


def test_no_two_classes_of_the_explorer_share_a_name():
    tui = {name: [p for p in paths if p.startswith("tui/")] for name, paths in _top_level(ast.ClassDef).items()}
    assert {name: paths for name, paths in tui.items() if len(paths) > 1} == {}


def test_one_function_is_called_fmt():
    assert _top_level(ast.FunctionDef)["fmt"] == ["tui/fmt.py"]

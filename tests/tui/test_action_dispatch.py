"""The one dispatch style (AttentionApp.action_do): every row of the key table that runs
``do('module.function', ...)`` names a function of attn_tui/tui/actions/module.py that takes the
app and the arguments the row gives, and no row gives more than Textual passes on (one); every
action a screen or widget names in its code (``app.action_do(...)``, ``app.run_action("do(...)")``)
exists and takes what it is given."""

from __future__ import annotations

import ast
import inspect
import re
from importlib import import_module
from pathlib import Path

import pytest
from textual.actions import parse

from attn_tui.tui.keys import all_keys

ROWS = [k for k in all_keys() if k.action.removeprefix("app.").startswith("do(")]


def test_the_table_dispatches_its_knobs_edits_files_and_screen_actions_this_way():
    modules = {parse(k.action.removeprefix("app."))[2][0].split(".")[0] for k in ROWS}
    assert {"knobs", "edit", "files", "settings", "go", "heads", "undo", "lenses"} <= modules
    assert not [k.action for k in all_keys() if "knob(" in k.action]  # the old getattr-on-State style is gone


@pytest.mark.parametrize("row", ROWS, ids=lambda k: f"{k.scope}:{k.key}")
def test_each_do_row_names_an_action_that_takes_its_arguments(row):
    _ns, name, args = parse(row.action.removeprefix("app."))
    assert name == "do" and 1 <= len(args) <= 2, row.action  # Textual passes (name, one argument) at most
    module, _, function = args[0].partition(".")
    fn = getattr(import_module(f"attn_tui.tui.actions.{module}"), function)
    inspect.signature(fn).bind(object(), *args[1:])  # fn(app, *args): TypeError when they do not fit


# Screens and widgets that ask for an action by name in code (``app.action_do("module.function", ...)``,
# ``app.run_action("do('module.function', ...)")``) rather than through a key: the names as the source writes
# them, found by reading it (ast), each resolved here, so a misspelt or removed action fails a test and not a key.
PACKAGE = Path(__file__).resolve().parents[2] / "attn_tui"
DO_NAME = re.compile(r"^do\('([a-z_]+\.[a-z_]+)'")


def _named_in_code(path: Path) -> list[tuple[str, str, int | None]]:
    """(where, "module.function", how many arguments follow the name, None when a string says them)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        where, first = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", node.args[0]
        if node.func.attr == "action_do" and isinstance(first, ast.Constant):
            found.append((where, first.value, len(node.args) - 1))
        elif node.func.attr == "run_action" and isinstance(first, ast.Constant | ast.JoinedStr):
            head = first.value if isinstance(first, ast.Constant) else first.values[0].value  # f"do('x.y', {..})"
            if m := DO_NAME.match(str(head)):
                found.append((where, m.group(1), None))
    return found


NAMED = [hit for p in sorted(PACKAGE.rglob("*.py")) for hit in _named_in_code(p)]


def test_the_scan_finds_the_actions_screens_ask_for_by_name():
    """The scan sees the calls it is meant to (else the test below passes on nothing): the heads screen's
    show_head, the token view's select_row, the tour's try_it through run_action."""
    names = {name for _where, name, _n in NAMED}
    assert {"heads.show_head", "knobs.select_row", "tour.try_it", "edit.cell"} <= names, names


@pytest.mark.parametrize(("where", "name", "n"), NAMED, ids=[w for w, _name, _n in NAMED])
def test_each_action_named_in_code_exists_and_takes_what_it_is_given(where, name, n):
    module, _, function = name.partition(".")
    fn = getattr(import_module(f"attn_tui.tui.actions.{module}"), function, None)
    assert callable(fn), f"{where}: no action {name} in attn_tui/tui/actions/{module}.py"
    params = list(inspect.signature(fn).parameters.values())
    assert params and params[0].name == "app", f"{where}: {name} does not take the app first"
    if n is not None:
        inspect.signature(fn).bind(object(), *range(n))  # fn(app, *args): TypeError when they do not fit

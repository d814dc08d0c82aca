"""The one dispatch style (AttentionApp.action_do): every row of the key table that runs
``do('module.function', ...)`` names a function of attn_tui/tui/actions/module.py that takes the
app and the arguments the row gives, and no row gives more than Textual passes on (one)."""

from __future__ import annotations

import inspect
from importlib import import_module

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

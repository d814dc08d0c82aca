"""The command line's registry (attn_tui/cli/commands.py): the parser and main both read it, so a new
command is a module and one line there; every command module of attn_tui/cli is in it."""

from __future__ import annotations

import importlib
import pkgutil
import types

from attn_tui import cli
from attn_tui.cli import commands


def test_every_command_module_is_registered_under_its_name():
    modules = [importlib.import_module(f"attn_tui.cli.{m.name}") for m in pkgutil.iter_modules(cli.__path__)]
    with_name = {m.NAME: m for m in modules if hasattr(m, "NAME")}
    assert len(with_name) >= 5  # the scan finds the commands (report, train, heads, capture, serve)
    assert commands.COMMANDS == with_name
    for module in with_name.values():
        assert callable(module.add_parser) and callable(module.run)


def test_help_lists_the_commands_in_the_registry_order():
    usage = cli.build_parser().format_help()
    listed = [name for name in commands.COMMANDS if f"\n    {name} " in usage]
    assert listed == list(commands.COMMANDS)
    positions = [usage.index(f"\n    {name} ") for name in commands.COMMANDS]
    assert positions == sorted(positions)


def test_a_new_command_is_a_module_and_one_line(monkeypatch, capsys):
    """A command added to the registry alone is parsed, listed by --help and run by main, with its code."""

    def add_parser(sub):
        sub.add_parser("hello", help="say hello").add_argument("--who", default="world")

    def run(args):
        print(f"hello {args.who}")
        return 3

    monkeypatch.setitem(commands.COMMANDS, "hello", types.SimpleNamespace(NAME="hello", add_parser=add_parser, run=run))
    assert "say hello" in cli.build_parser().format_help()
    assert cli.main(["hello", "--who", "you"]) == 3
    assert capsys.readouterr().out == "hello you\n"

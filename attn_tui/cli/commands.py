"""The registry of commands: `attn-tui NAME ...` runs COMMANDS[NAME].run(args) (cli/__init__.py:main),
and the parser adds each one's arguments with its add_parser(sub) (cli/parser.py), in this order
(`attn-tui --help` lists them so). A new command is a module with NAME, add_parser(sub) and
run(args) -> exit code, and one line here. Without a command: the explorer (cli/explorer.py)."""

from __future__ import annotations

from . import capture, heads, report, serve, train

COMMANDS = {command.NAME: command for command in (report, train, heads, capture, serve)}

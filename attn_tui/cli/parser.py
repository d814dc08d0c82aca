"""The command line's parser (argparse), imported only when `attn-tui` is given arguments: a launch of
the explorer with none builds no parser (cli/__init__.py:NO_ARGS: the values the parser gives for none).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, NoReturn

from .. import __version__
from .args import SCENARIO_HELP
from .commands import COMMANDS
from .errors import UsageError
from .output import emit, finish

if TYPE_CHECKING:
    from typing import Any

RUN_HELP = (
    f"{SCENARIO_HELP}, or a multi-head one (induction-demo, text-demo, a multi-head file: its heads, > and < move)"
)


class Parser(argparse.ArgumentParser):
    """``fill``: a function adding a subcommand's arguments, run when that subcommand is parsed or its
    help is shown, so a launch of the explorer does not import what train's or serve's defaults need."""

    def __init__(self, *args: Any, fill=None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._fill = fill

    def _filled(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill(self)

    def parse_known_args(self, args: Any | None = None, namespace=None):
        self._filled()
        return super().parse_known_args(args, namespace)

    def format_help(self):
        self._filled()
        return super().format_help()

    def error(self, message) -> NoReturn:  # one line, no usage dump; main() turns it into exit 2
        raise UsageError(f"{message} (see {self.prog} --help)")  # main() says it after the one prefix

    def print_help(self, file=None) -> None:  # --help: a checked write (output.emit), not argparse's unchecked one
        if file is None:
            emit(self.format_help())
        else:
            super().print_help(file)

    def exit(self, status: int = 0, message=None) -> NoReturn:
        finish()  # OutputError if what was printed could not be written
        super().exit(status, message)


class Version(argparse.Action):
    """--version through output.emit: argparse's own write ignores a failed one."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        emit(f"attn-tui {__version__}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="attn-tui",
        description="Take scaled dot-product attention apart, live, in a terminal "
        "(Lesson 08). Without a command: the explorer.",
    )
    p.add_argument("--version", action=Version, help="show the version and exit")
    p.add_argument(
        "--scenario",
        dest="run_scenario",
        metavar="NAME|FILE",
        help=f"open the explorer on {RUN_HELP} (default: lesson-pipeline)",
    )
    p.add_argument(
        "--tokens",
        dest="run_tokens",
        metavar='"q w e r q w e r"',
        help="with --scenario induction-demo: run the model on these tokens (letters a..z, space-separated)",
    )
    p.add_argument(
        "--text",
        dest="run_text",
        metavar='"The cat sat on the mat."',
        help="with --scenario text-demo: run the model on this text (any English, up to 1,024 tokens; "
        "a note says where it passes the longest text it was trained on)",
    )
    p.add_argument("--theme", metavar="NAME", help="a Textual theme, e.g. textual-light (default textual-dark)")
    kept = p.add_mutually_exclusive_group()
    kept.add_argument("--resume", action="store_true", help="restore the last kept session without asking")
    kept.add_argument("--fresh", action="store_true", help="start clean: do not offer the last kept session")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS.values():  # cli/commands.py: one line a command
        command.add_parser(sub)
    return p

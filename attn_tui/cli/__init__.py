"""The command line: ``attn-tui`` runs the explorer (explorer.py), ``attn-tui COMMAND ...`` one of the
commands of commands.py (report, train, heads, capture, serve), each a module of this package.

main() turns every refusal into one line on stderr and exit 2, and a failed write into exit 1
(output.py). The parser (parser.py: argparse and every command's arguments) is built only when there
are arguments to parse, and the explorer imports Textual only on its run path, so ``report`` never
loads a UI library.
"""

from __future__ import annotations

import gc
import sys
from types import SimpleNamespace

from ..core.limits import printable, unexpected
from . import explorer
from .errors import EXIT_BAD_INPUT, UsageError, refusal
from .output import OutputError, fail, interrupted, say

# What the parser gives for no arguments (tests/report/test_cli.py checks they stay the same): the explorer
# on the lesson, launched without building the parser.
NO_ARGS = {
    "command": None,
    "run_scenario": None,
    "run_tokens": None,
    "run_text": None,
    "theme": None,
    "resume": False,
    "fresh": False,
}


def build_parser():
    """The argparse parser of every command (parser.py)."""
    from .parser import build_parser as build

    return build()


def main(argv: list[str] | None = None) -> int:
    args = None
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser().parse_args(argv) if argv else SimpleNamespace(**NO_ARGS)
        if args.command is None:
            return explorer.run(args)
        gc.enable()  # `python -m attn_tui` paused it for the explorer's start-up only (explorer.run)
        from .commands import COMMANDS

        return COMMANDS[args.command].run(args)
    except (UsageError, ValueError) as exc:  # the parser's, the doors' (ScenarioError), the core's refusals
        say(refusal(exc))
        return EXIT_BAD_INPUT
    except (OverflowError, MemoryError, RecursionError) as exc:  # a backstop: the core's limits come first
        name = getattr(args, "scenario", None) or getattr(args, "run_scenario", None) or getattr(args, "source", None)
        what = f"{printable(name)}: " if name else ""
        say(refusal(f"{what}cannot compute this scenario ({unexpected(exc)})"))
        return EXIT_BAD_INPUT
    except OutputError as exc:  # a full disk, /dev/full, a closed pipe or stdout: not finished
        return fail(exc)
    except BrokenPipeError:  # a write outside output.emit (a progress line) met a closed pipe
        return fail(OutputError("the reader went away (a closed pipe)"))
    except KeyboardInterrupt:  # Ctrl-C during long work (heads, report at 16,384 tokens): nothing printed
        interrupted()
        return 130

"""Command line: ``attn-tui [--scenario NAME|FILE]`` runs the explorer,
``attn-tui report [--scenario NAME|FILE] [--json]`` prints numbers headless.

A bad scenario is refused before any UI starts: one line on stderr, exit 2.
The explorer (and so textual) is imported only on the run path, so ``report``
never loads a UI library.
"""

from __future__ import annotations

import argparse
import gc
import sys

from . import __version__, capture_cli, heads_cli, serve, train_cli
from .blas_limit import limit_blas
from .core.builtins import BUILTINS
from .core.limits import MAX_DIM, REPORT_TEXT_MAX, printable, unexpected
from .core.scenario_io import ScenarioError, resolve
from .output import OutputError, emit, fail, finish, say

EXIT_OK, EXIT_BAD_INPUT = 0, 2
SCENARIO_HELP = f"a built-in ({', '.join(BUILTINS)}) or a scenario file (.toml, .npz, .safetensors)"
RUN_HELP = f"{SCENARIO_HELP}, or a multi-head one (induction-demo, a multi-head file: its heads, > and < move)"


class UsageError(Exception):
    """A command-line mistake; str() is the one-line message."""


class Parser(argparse.ArgumentParser):
    """``fill``: a function adding a subcommand's arguments, run when that subcommand is parsed or its
    help is shown, so a launch of the explorer does not import what train's or serve's defaults need."""

    def __init__(self, *args, fill=None, **kw):
        super().__init__(*args, **kw)
        self._fill = fill

    def _filled(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill(self)

    def parse_known_args(self, args=None, namespace=None):
        self._filled()
        return super().parse_known_args(args, namespace)

    def format_help(self):
        self._filled()
        return super().format_help()

    def error(self, message):  # one line, no usage dump; main() turns it into exit 2
        raise UsageError(f"{self.prog}: {message} (see {self.prog.split()[0]} --help)")

    def print_help(self, file=None):  # --help: a checked write (output.emit), not argparse's unchecked one
        if file is None:
            emit(self.format_help())
        else:
            super().print_help(file)

    def exit(self, status=0, message=None):
        finish()  # OutputError if what was printed could not be written
        super().exit(status, message)


class Version(argparse.Action):
    """--version through output.emit: argparse's own write ignores a failed one."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
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
    p.add_argument("--theme", metavar="NAME", help="a Textual theme, e.g. textual-light (default textual-dark)")
    kept = p.add_mutually_exclusive_group()
    kept.add_argument("--resume", action="store_true", help="restore the last kept session without asking")
    kept.add_argument("--fresh", action="store_true", help="start clean: do not offer the last kept session")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    r = sub.add_parser(
        "report",
        help="print the lesson's numbers (or one scenario's) without the UI",
        description="Without --scenario: every number Lesson 08 prints, in its order. "
        "With --scenario: that scenario's matrices and numbers "
        f"(a summary above {REPORT_TEXT_MAX} tokens, JSON above {MAX_DIM}, unless --full).",
    )
    r.add_argument("--scenario", metavar="NAME|FILE", help=SCENARIO_HELP)
    r.add_argument("--json", action="store_true", help="JSON instead of text (non-finite numbers as null)")
    r.add_argument(
        "--full",
        action="store_true",
        help=f"every matrix, up to 2048 tokens; without it the text summarises above {REPORT_TEXT_MAX} tokens, "
        f"the JSON above {MAX_DIM}",
    )
    whole = train_cli.number_type  # ASCII digits only: type=int read '١' as 1
    r.add_argument("--layer", type=whole(int, "L"), metavar="L", help="with a multi-head scenario: the layer (from 0)")
    r.add_argument("--head", type=whole(int, "H"), metavar="H", help="with a multi-head scenario: the head (from 0)")
    train_cli.add_parser(sub)
    heads_cli.add_parser(sub)
    capture_cli.add_parser(sub)
    serve.add_parser(sub, SCENARIO_HELP)
    return p


def _load(name):
    """The scenario for NAME|FILE, or None for the default. ScenarioError on bad input."""
    return None if name is None else resolve(name, large=True)  # T up to limits.MAX_T (lazy State)


def report(args) -> str:
    # imported here so that `attn-tui --help` stays fast
    from .report import as_json, full, summary, text

    scenario = heads_cli.report_scenario(args)  # a multi-head file's (or built-in's) head --layer L --head H
    if scenario is None and args.scenario is not None:
        scenario = resolve(args.scenario, large=True)  # T up to 16384
    if scenario is None:
        return as_json.lesson_json() if args.json else text.lesson_text()
    if full.is_large(scenario, args.json):
        if not args.full:
            f = summary.summarise(scenario, progress=_progress(summary))
            return (
                as_json.dumps(summary.summary_dict(scenario, args.scenario, f))
                if args.json
                else summary.summary_text(scenario, args.scenario, f)
            )
        full.check_full(scenario, args.json)  # the JSON's peak is ~4x the text's
    if args.json:
        return as_json.scenario_json(scenario, args.scenario)
    return text.scenario_text(scenario, args.scenario)


def _check_served(name) -> None:
    """What `serve --scenario NAME|FILE` checks before listening: the door the tab's explorer opens it
    by (a multi-head built-in or file through the heads door, else a scenario); one line, exit 2."""
    if _is_heads(name):
        heads_cli.open_first(name, None)
    else:
        _load(name)


def _is_heads(name: str) -> bool:
    """A multi-head built-in or file (core.heads: imported only when a name is given)."""
    from .core.heads.demo import HEAD_BUILTINS
    from .core.heads.multihead_io import is_heads_file

    return name in HEAD_BUILTINS or is_heads_file(name)


def _load_run(args):
    """(scenario or None, HeadRef or None) the explorer opens on: a multi-head source's head 0.0
    (tui/heads_nav.py), else a single-head scenario; --tokens only with a multi-head built-in."""
    name = args.run_scenario
    if name is not None and _is_heads(name):
        src, first = heads_cli.open_first(name, args.run_tokens)  # refused here, before any UI module is imported
        from .tui.heads_nav import first_head

        return first_head(src, name, admitted=first)
    if args.run_tokens is not None:
        raise UsageError("attn-tui: --tokens goes with a multi-head built-in: --scenario induction-demo --tokens ...")
    return _load(name), None


def run(args) -> int:
    # No cyclic garbage collection until the explorer's first frame (AttentionApp.on_mount resumes it):
    # start-up makes only objects that live on (modules, classes, widgets, styles), and the full
    # collections they set off scanned them all, ~40 ms of a launch, freeing nothing.
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def _run(args) -> int:
    scenario, head = _load_run(args)  # refuse a bad file before any UI starts
    from .tui.app import AttentionApp  # textual only on this path
    from .tui.themes import check_theme

    heads = {} if head is None else {"head": head}  # a single-head scenario: the call as before
    app = AttentionApp(scenario=scenario, session=_keeper(args, scenario), **heads)
    limit_blas(app)
    if getattr(args, "title_first", False):  # `capture --open`: the check's figure whole, not the hint
        app.first_screen = False
    if args.theme is not None:
        app.theme = check_theme(args.theme)  # ValueError listing the themes: one line, exit 2
    app.run()
    code = getattr(app, "return_code", None) or EXIT_OK  # non-zero when Textual caught a crash or a signal
    _kept(app, code)
    return code


def _keeper(args, scenario):
    """The session keeper (tui/session.py), or None under `attn-tui serve` (a browser tab keeps nothing)."""
    import os

    if "web_driver" in os.environ.get("TEXTUAL_DRIVER", ""):
        return None
    from .core.builtins import DEFAULT, builtin
    from .core.session_store import state_folder
    from .tui.session import SessionKeeper

    opened = scenario if scenario is not None else builtin(DEFAULT)
    return SessionKeeper(state_folder(), opened, args.run_scenario or DEFAULT, resume=args.resume, fresh=args.fresh)


def _kept(app, code: int) -> None:
    """After the app: keep the session if no quit or signal did (a crash), and say where it is."""
    keeper = getattr(app, "session", None)
    if keeper is None:
        return
    if keeper.written is None:
        keeper.keep(app, "crash" if code else "exit")
    if keeper.message:
        say(keeper.message)  # nothing if the terminal is gone (SIGHUP): the file is written


def _progress(summary):
    """The summary's progress lines on a terminal's stderr; none when stderr is not one or is closed
    (``2>&-``: sys.stderr is None, and .isatty() raised before any output)."""
    return summary.progress_to(sys.stderr) if sys.stderr is not None and sys.stderr.isatty() else None


def main(argv=None) -> int:
    args = None
    try:
        args = build_parser().parse_args(argv)
        if args.command is not None:
            gc.enable()  # `python -m attn_tui` paused it for the explorer's start-up only (run)
        if args.command == "serve":
            return serve.run(args, _check_served)  # the explorer's own doors (its sizes, multi-head sources)
        if args.command == "train":
            emit(train_cli.run(args))
            return EXIT_OK
        if args.command == "capture":
            return capture_cli.run(args)
        if args.command == "heads":
            emit(heads_cli.run(args))  # checked, as report's and train's (a bare write raised a traceback)
            return EXIT_OK
        if args.command == "report":
            if args.run_scenario is not None and args.scenario is None:
                args.scenario = args.run_scenario  # `attn-tui --scenario F report` means the same
            emit(report(args))
            return EXIT_OK
        return run(args)
    except (UsageError, ScenarioError) as exc:
        say(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return EXIT_BAD_INPUT
    except ValueError as exc:  # the core's refusals (a built-in with a bad setting, say)
        say(f"attn-tui: {str(exc).splitlines()[0]}")
        return EXIT_BAD_INPUT
    except (OverflowError, MemoryError, RecursionError) as exc:  # a backstop: the core's limits come first
        name = getattr(args, "scenario", None) or getattr(args, "run_scenario", None) or getattr(args, "source", None)
        what = f"{printable(name)}: " if name else ""
        say(f"attn-tui: {what}cannot compute this scenario ({unexpected(exc)})")
        return EXIT_BAD_INPUT
    except OutputError as exc:  # a full disk, /dev/full, a closed pipe or stdout: not finished
        return fail(exc)
    except BrokenPipeError:  # a write outside output.emit (a progress line) met a closed pipe
        return fail(OutputError("the reader went away (a closed pipe)"))
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()

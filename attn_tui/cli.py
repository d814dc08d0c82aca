"""Command line: ``attn-tui [--scenario NAME|FILE]`` runs the explorer,
``attn-tui report [--scenario NAME|FILE] [--json]`` prints numbers headless.

A bad scenario is refused before any UI starts: one line on stderr, exit 2.
The explorer (and so textual) is imported only on the run path, so ``report``
never loads a UI library.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__, capture_cli, heads_cli, serve, train_cli
from .core.builtins import BUILTINS
from .core.limits import printable, unexpected
from .core.scenario_io import ScenarioError, resolve

EXIT_OK, EXIT_BAD_INPUT = 0, 2
SCENARIO_HELP = f"a built-in ({', '.join(BUILTINS)}) or a scenario file (.toml, .npz, .safetensors)"


class UsageError(Exception):
    """A command-line mistake; str() is the one-line message."""


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump; main() turns it into exit 2
        raise UsageError(f"{self.prog}: {message} (see {self.prog.split()[0]} --help)")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="attn-tui",
        description="Take scaled dot-product attention apart, live, in a terminal "
        "(Lesson 08). Without a command: the explorer.",
    )
    p.add_argument("--version", action="version", version=f"attn-tui {__version__}")
    p.add_argument(
        "--scenario",
        dest="run_scenario",
        metavar="NAME|FILE",
        help=f"open the explorer on {SCENARIO_HELP} (default: lesson-pipeline)",
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
        "With --scenario: that scenario's matrices and numbers.",
    )
    r.add_argument("--scenario", metavar="NAME|FILE", help=SCENARIO_HELP)
    r.add_argument("--json", action="store_true", help="JSON instead of text (non-finite numbers as null)")
    r.add_argument(
        "--full",
        action="store_true",
        help="every matrix even above 512 tokens (up to 2048); without it a large scenario gets a summary",
    )
    r.add_argument("--layer", type=int, metavar="L", help="with a multi-head scenario: the layer (from 0)")
    r.add_argument("--head", type=int, metavar="H", help="with a multi-head scenario: the head (from 0)")
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
    from .report import as_json, summary, text

    scenario = heads_cli.report_scenario(args)  # a multi-head file's (or built-in's) head --layer L --head H
    if scenario is None and args.scenario is not None:
        scenario = resolve(args.scenario, large=True)  # T up to 16384
    if scenario is None:
        return as_json.lesson_json() if args.json else text.lesson_text()
    if summary.is_large(scenario):
        if not args.full:
            f = summary.summarise(scenario, progress=summary.progress_to(sys.stderr) if sys.stderr.isatty() else None)
            return (
                as_json.dumps(summary.summary_dict(scenario, args.scenario, f))
                if args.json
                else summary.summary_text(scenario, args.scenario, f)
            )
        summary.check_full(scenario, args.json)  # the JSON's peak is ~4x the text's
    if args.json:
        return as_json.scenario_json(scenario, args.scenario)
    return text.scenario_text(scenario, args.scenario)


def run(args) -> int:
    scenario = _load(args.run_scenario)  # refuse a bad file before any UI starts
    return run_scenario(scenario, args.theme, args)


def run_scenario(scenario, theme=None, args=None, hint: bool = True) -> int:
    """The explorer on ``scenario`` (None: the default); ``args`` for the kept session's flags;
    ``hint`` False: the status line shows the scenario's title at once, not the "new here?" hint."""
    if args is None:
        args = argparse.Namespace(run_scenario=None, resume=False, fresh=True)
    from threadpoolctl import threadpool_limits

    from .tui.app import AttentionApp  # textual only on this path
    from .tui.themes import check_theme

    # One BLAS thread: the explorer's products are small (16 query rows x 2048 keys at T = 16384),
    # and a second thread made A's row statistics 3-4x slower on a busy 2-core machine (7 -> 25 ms).
    threadpool_limits(1, user_api="blas")
    app = AttentionApp(scenario=scenario, session=_keeper(args, scenario))
    app.first_screen = hint
    if theme is not None:
        app.theme = check_theme(theme)  # ValueError listing the themes: one line, exit 2
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
        try:
            print(keeper.message, file=sys.stderr)
        except OSError:  # SIGHUP: the terminal is gone; the file is written
            pass


def main(argv=None) -> int:
    args = None
    try:
        args = build_parser().parse_args(argv)
        if args.command == "serve":
            return serve.run(args, _load)  # the explorer's own door (its sizes)
        if args.command == "train":
            sys.stdout.write(train_cli.run(args))
            sys.stdout.flush()
            return EXIT_OK
        if args.command == "capture":
            return capture_cli.run(args)
        if args.command == "heads":
            sys.stdout.write(heads_cli.run(args))
            sys.stdout.flush()
            return EXIT_OK
        if args.command == "report":
            if args.run_scenario is not None and args.scenario is None:
                args.scenario = args.run_scenario  # `attn-tui --scenario F report` means the same
            sys.stdout.write(report(args))
            sys.stdout.flush()
            return EXIT_OK
        return run(args)
    except (UsageError, ScenarioError) as exc:
        print(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:  # the core's refusals (a built-in with a bad setting, say)
        print(f"attn-tui: {str(exc).splitlines()[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OverflowError, MemoryError, RecursionError) as exc:  # a backstop: the core's limits come first
        name = getattr(args, "scenario", None) or getattr(args, "run_scenario", None)
        what = f"{printable(name)}: " if name else ""
        print(f"attn-tui: {what}cannot compute this scenario ({unexpected(exc)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `attn-tui report | head`: the reader left; not an error
        _silence_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def _silence_stdout():
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()

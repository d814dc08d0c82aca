"""Command line: ``attn-tui [--scenario NAME|FILE]`` runs the explorer,
``attn-tui report [--scenario NAME|FILE] [--json]`` prints numbers headless.

A bad scenario is refused before any UI starts: one line on stderr, exit 2.
The explorer (and so textual) is imported only on the run path, so ``report``
never loads a UI library; the parser (parser.py, argparse and every subcommand's
arguments) only when there are arguments to parse.
"""

from __future__ import annotations

import gc
import sys
from types import SimpleNamespace

from ..core.limits import printable, unexpected
from ..core.scenario_io import ScenarioError, resolve
from .blas_limit import limit_blas
from .output import OutputError, emit, fail, say

EXIT_OK, EXIT_BAD_INPUT = 0, 2
# What the parser gives for no arguments (tests/report/test_cli.py checks they stay the same): the explorer
# on the lesson, launched without building the parser.
NO_ARGS = {"command": None, "run_scenario": None, "run_tokens": None, "theme": None, "resume": False, "fresh": False}


class UsageError(Exception):
    """A command-line mistake; str() is the one-line message."""


def build_parser():
    """The argparse parser of every command (parser.py)."""
    from .parser import build_parser as build

    return build()


def _load(name):
    """The scenario for NAME|FILE, or None for the default. ScenarioError on bad input."""
    return None if name is None else resolve(name, large=True)  # T up to limits.MAX_T (lazy State)


def report(args) -> str:
    # imported here so that `attn-tui --help` stays fast
    from ..report import as_json, full, summary, text
    from . import heads as heads_cli

    head = heads_cli.report_scenario(args)  # a multi-head file's (or built-in's) head --layer L --head H
    scenario, w_o_h = (None, None) if head is None else head  # w_o_h: its W_O^(h), for A_info_weighted
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
        full.check_full(scenario, args.json, w_o_h is not None)  # the JSON's peak is ~4x the text's
    if args.json:
        return as_json.scenario_json(scenario, args.scenario, w_o_h)
    return text.scenario_text(scenario, args.scenario)


def _check_served(name) -> None:
    """What `serve --scenario NAME|FILE` checks before listening: the door the tab's explorer opens it
    by (a multi-head built-in or file through the heads door, else a scenario); one line, exit 2."""
    if _is_heads(name):
        from . import heads as heads_cli

        heads_cli.open_first(name, None)
    else:
        _load(name)


def _is_heads(name: str) -> bool:
    """A multi-head built-in or file (core.heads: imported only when a name is given)."""
    from ..core.heads.demo import HEAD_BUILTINS
    from ..core.heads.multihead_io import is_heads_file

    return name in HEAD_BUILTINS or is_heads_file(name)


def _load_run(args):
    """(scenario or None, HeadRef or None) the explorer opens on: a multi-head source's head 0.0
    (tui/heads_nav.py), else a single-head scenario; --tokens only with a multi-head built-in."""
    name = args.run_scenario
    if name is not None and _is_heads(name):
        from . import heads as heads_cli

        src, first = heads_cli.open_first(name, args.run_tokens)  # refused here, before any UI module is imported
        from ..tui.heads_nav import first_head

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
    from ..tui.themes import check_theme

    theme = None if args.theme is None else check_theme(args.theme)  # ValueError listing the themes: exit 2
    _need_terminal()  # after the arguments' own refusals
    from ..tui.app import AttentionApp  # textual only on this path

    heads = {} if head is None else {"head": head}  # a single-head scenario: the call as before
    app = AttentionApp(scenario=scenario, session=_keeper(args, scenario), **heads)
    limit_blas(app)
    if getattr(args, "title_first", False):  # `capture --open`: the check's figure whole, not the hint
        app.first_screen = False
    if theme is not None:
        app.theme = theme
    app.run()
    code = getattr(app, "return_code", None) or EXIT_OK  # non-zero when Textual caught a crash or a signal
    _kept(app, code)
    return code


def _need_terminal() -> None:
    """UsageError when stdin or stdout is not a terminal (a pipe, a file, /dev/null, cron, closed):
    the explorer draws on its terminal and reads its keys there. Started so, Textual wrote its escape
    codes into the file and spun a CPU at the end of its input, for good. `attn-tui serve`'s tabs
    draw through the web driver (TEXTUAL_DRIVER) and need none."""
    import os

    if os.environ.get("TEXTUAL_DRIVER"):
        return
    bad = [name for name, f in (("stdin", sys.stdin), ("stdout", sys.stdout)) if f is None or not _isatty(f)]
    if bad:
        raise UsageError(
            f"attn-tui: the explorer needs a terminal and {' and '.join(bad)} {'is' if len(bad) == 1 else 'are'} "
            "not one; `attn-tui report` prints the lesson's numbers without one"
        )


def _isatty(f) -> bool:
    try:
        return f.isatty()
    except ValueError:  # closed
        return False


def _keeper(args, scenario):
    """The session keeper (tui/session.py), or None under `attn-tui serve` (a browser tab keeps nothing)."""
    import os

    if "web_driver" in os.environ.get("TEXTUAL_DRIVER", ""):
        return None
    from ..core.builtins import DEFAULT, builtin
    from ..core.session_store import state_folder
    from ..tui.session import SessionKeeper

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
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser().parse_args(argv) if argv else SimpleNamespace(**NO_ARGS)
        if args.command is not None:
            gc.enable()  # `python -m attn_tui` paused it for the explorer's start-up only (run)
        if args.command == "serve":
            from . import serve

            return serve.run(args, _check_served)  # the explorer's own doors (its sizes, multi-head sources)
        if args.command == "train":
            from . import train as train_cli

            emit(train_cli.run(args))
            return EXIT_OK
        if args.command == "capture":
            from . import capture as capture_cli

            return capture_cli.run(args)
        if args.command == "heads":
            from . import heads as heads_cli

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

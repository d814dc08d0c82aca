"""The explorer: `attn-tui [--scenario NAME|FILE] [--tokens "..." | --text "..."] [--theme NAME] [--resume|--fresh]`.

A bad scenario is refused before any UI starts: one line on stderr, exit 2. Textual is imported only
here, on the run path, so `report` never loads a UI library.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING

from ..core.scenario_io import resolve
from .blas_limit import limit_blas
from .errors import EXIT_OK, UsageError
from .output import say

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.scenario import Scenario


def load(name: str):
    """The scenario for NAME|FILE, or None for the default. ScenarioError on bad input."""
    return None if name is None else resolve(name, large=True)  # T up to limits.MAX_T (lazy State)


def is_heads(name: str) -> bool:
    """A multi-head built-in or file (core.heads: imported only when a name is given)."""
    from ..core.heads.demo import HEAD_BUILTINS
    from ..core.heads.multihead_io import is_heads_file

    return name in HEAD_BUILTINS or is_heads_file(name)


def check_opens(name: str) -> None:
    """What `serve --scenario NAME|FILE` checks before listening: the door the tab's explorer opens it
    by (a multi-head built-in or file through the heads door, else a scenario); one line, exit 2."""
    if is_heads(name):
        from . import heads

        heads.open_first(name, None)
    else:
        load(name)


def opened(args: Any):
    """(scenario or None, HeadRef or None) the explorer opens on: a multi-head source's head 0.0
    (tui/heads_nav.py), else a single-head scenario; --tokens or --text only with a multi-head built-in."""
    name = args.run_scenario
    from .heads import given_text

    text, flag = given_text(args.run_tokens, getattr(args, "run_text", None))
    if name is not None and is_heads(name):
        from . import heads

        src, first = heads.open_first(name, text, flag)  # refused here, before any UI module is imported
        from ..tui.heads_nav import first_head

        return first_head(src, name, admitted=first)
    if text is not None:
        example = "--scenario induction-demo --tokens" if flag == "--tokens" else "--scenario text-demo --text"
        raise UsageError(f"{flag} goes with a multi-head built-in: {example} ...")
    return load(name), None


def run(args: Any) -> int:
    # No cyclic garbage collection until the explorer's first frame (AttentionApp.on_mount resumes it):
    # start-up makes only objects that live on (modules, classes, widgets, styles), and the full
    # collections they set off scanned them all, ~40 ms of a launch, freeing nothing.
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def _run(args: Any) -> int:
    scenario, head = opened(args)  # refuse a bad file before any UI starts
    from ..tui.themes import check_theme

    theme = None if args.theme is None else check_theme(args.theme)  # ValueError listing the themes: exit 2
    need_terminal()  # after the arguments' own refusals
    from ..tui.app import AttentionApp  # textual only on this path

    heads = {} if head is None else {"head": head}  # a single-head scenario: the call as before
    app = AttentionApp(scenario=scenario, session=keeper(args, scenario), **heads)
    limit_blas(app)
    if getattr(args, "title_first", False):  # `capture --open`: the check's figure whole, not the hint
        app.first_screen = False
    if theme is not None:
        app.theme = theme
    app.run()
    code = getattr(app, "return_code", None) or EXIT_OK  # non-zero when Textual caught a crash or a signal
    kept(app, code)
    return code


def need_terminal() -> None:
    """UsageError when stdin or stdout is not a terminal (a pipe, a file, /dev/null, cron, closed):
    the explorer draws on its terminal and reads its keys there. Started so, Textual wrote its escape
    codes into the file and spun a CPU at the end of its input, for good. `attn-tui serve`'s tabs
    draw through the web driver (TEXTUAL_DRIVER) and need none."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return
    bad = [name for name, f in (("stdin", sys.stdin), ("stdout", sys.stdout)) if f is None or not _isatty(f)]
    if bad:
        raise UsageError(
            f"the explorer needs a terminal and {' and '.join(bad)} {'is' if len(bad) == 1 else 'are'} "
            "not one; `attn-tui report` prints the lesson's numbers without one"
        )


def _isatty(f) -> bool:
    try:
        return f.isatty()
    except ValueError:  # closed
        return False


def keeper(args: Any, scenario: Scenario):
    """The session keeper (tui/session.py), or None under `attn-tui serve` (a browser tab keeps nothing)."""
    if "web_driver" in os.environ.get("TEXTUAL_DRIVER", ""):
        return None
    from ..core.builtins import DEFAULT, builtin
    from ..core.session_store import state_folder
    from ..tui.session import SessionKeeper

    first = scenario if scenario is not None else builtin(DEFAULT)
    source, asked = args.run_scenario or DEFAULT, args.run_scenario is not None
    return SessionKeeper(state_folder(), first, source, resume=args.resume, fresh=args.fresh, asked=asked)


def kept(app, code: int) -> None:
    """After the app: keep the session if no quit or signal did (a crash), and say where it is."""
    session = getattr(app, "session", None)
    if session is None:
        return
    if session.written is None:
        session.keep(app, "crash" if code else "exit")
    if session.message:
        say(session.message)  # nothing if the terminal is gone (SIGHUP): the file is written

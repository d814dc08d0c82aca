"""`attn-tui report [--scenario NAME|FILE] [--json] [--full] [--layer L --head H] [--tokens/--text "..."]`:
the lesson's numbers (or one scenario's, or a built-in model's head on a text) without the UI; imports the
report and the core only when it runs."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..core.limits import REPORT_JSON_MAX, REPORT_TEXT_MAX
from ..core.scenario_io import resolve
from .args import HEADS_HELP, SCENARIO_HELP, number_type
from .errors import EXIT_OK
from .output import emit

if TYPE_CHECKING:
    from typing import Any

NAME = "report"


def add_parser(sub) -> None:
    r = sub.add_parser(
        NAME,
        help="print the lesson's numbers (or one scenario's) without the UI",
        description="Without --scenario: every number Lesson 08 prints, in its order. "
        "With --scenario: that scenario's matrices and numbers "
        f"(a summary above {REPORT_TEXT_MAX} tokens, JSON above {REPORT_JSON_MAX}, unless --full).",
    )
    r.add_argument(
        "--scenario", metavar="NAME|FILE", help=f"{SCENARIO_HELP}; or one head of {HEADS_HELP}, with --layer L --head H"
    )
    r.add_argument("--json", action="store_true", help="JSON instead of text (non-finite numbers as null)")
    r.add_argument(
        "--full",
        action="store_true",
        help=f"every matrix, up to 2048 tokens; without it the text summarises above {REPORT_TEXT_MAX} tokens, "
        f"the JSON above {REPORT_JSON_MAX}",
    )
    whole = number_type  # ASCII digits only: type=int read '١' as 1
    r.add_argument("--layer", type=whole(int, "L"), metavar="L", help="with a multi-head scenario: the layer (from 0)")
    r.add_argument("--head", type=whole(int, "H"), metavar="H", help="with a multi-head scenario: the head (from 0)")
    from .heads import TEXT_HELP

    r.add_argument("--tokens", metavar='"q w e r q w e r"', help="run induction-demo on these letters (a..z, spaces)")
    r.add_argument("--text", metavar='"The cat sat on the mat."', help=TEXT_HELP)


def run(args: Any) -> int:
    if args.run_scenario is not None and args.scenario is None:
        args.scenario = args.run_scenario  # `attn-tui --scenario F report` means the same
    emit(render(args))
    return EXIT_OK


def render(args: Any) -> str:
    """What `report` prints: the lesson's numbers, a scenario's, or the bounded summary of a large one."""
    # imported here so that `attn-tui --help` stays fast
    from ..report import as_json, full, summary, text
    from . import heads

    head = heads.report_scenario(args)  # a multi-head file's (or built-in's) head --layer L --head H
    # w_o_h: its W_O^(h), for A_info_weighted; proj: the model's d_model and this head's projections
    scenario, w_o_h, proj = (None, None, None) if head is None else head
    if scenario is None and args.scenario is not None:
        scenario = resolve(args.scenario, large=True)  # T up to 16384
    if scenario is None:
        return as_json.lesson_json() if args.json else text.lesson_text()
    if full.is_large(scenario, args.json):
        if not args.full:
            f = summary.summarise(scenario, progress=_progress(summary))
            return (
                as_json.dumps(summary.summary_dict(scenario, args.scenario, f, proj))
                if args.json
                else summary.summary_text(scenario, args.scenario, f, proj)
            )
        full.check_full(scenario, args.json, w_o_h is not None)  # the JSON's peak is ~4x the text's
    if args.json:
        return as_json.scenario_json(scenario, args.scenario, w_o_h, proj)
    return text.scenario_text(scenario, args.scenario, proj)


def _progress(summary):
    """The summary's progress lines on a terminal's stderr; none when stderr is not one or is closed
    (``2>&-``: sys.stderr is None, and .isatty() raised before any output)."""
    return summary.progress_to(sys.stderr) if sys.stderr is not None and sys.stderr.isatty() else None

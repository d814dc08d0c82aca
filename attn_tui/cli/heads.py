"""`attn-tui heads NAME|FILE [--layer L] [--tokens "..." | --text "..."] [--json] [--rollout [--query ROWS]]`:
every head's reading, or the attention rollout across the layers, headless.

Its door (open_first, report_scenario) is also how the explorer, `report --layer/--head` and `serve`
open a multi-head source.
Bad input (an unknown token, too many tokens, a malformed multi-head file, a layer that is not
there) is a ValueError: one line, exit 2 (cli.main); the core's line about a text (an InputError)
is prefixed here with the flag that gave it (opened). An exception no check foresaw (a TypeError
from a hostile file, a MemoryError) is the backstop's one line naming the file, as at the
single-head door (scenario_io.load): never a traceback.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .args import number_type
from .errors import EXIT_OK
from .output import emit, progress_line, say

if TYPE_CHECKING:
    from typing import Any

NAME = "heads"
TEXT_HELP = (
    "run a built-in model on this text: text-demo any English (up to 1,024 tokens; a note says where it passes "
    "the longest text it was trained on), induction-demo letters"
)


def add_parser(sub) -> None:
    h = sub.add_parser(
        NAME,
        help="every head of a multi-head scenario: entropy against the mean log2 t, previous-token, first, self, "
        "induction, duplicate; or the attention rollout",
        description="The readings of every head (layers and heads counted from 0) of a built-in model: induction-demo "
        "(a trained two-layer model over a..z) or text-demo (a two-layer model trained on English, any text), "
        "or of a multi-head .safetensors / .npz file (docs/HEADS.md).",
    )
    h.add_argument(
        "source", metavar="NAME|FILE", help="induction-demo, text-demo, or a multi-head .safetensors / .npz file"
    )
    h.add_argument("--layer", type=number_type(int, "L"), metavar="L", help="one layer's heads only (counted from 0)")
    h.add_argument(
        "--tokens",
        metavar='"q w e r q w e r"',
        help="run induction-demo on these tokens (letters a..z separated by spaces)",
    )
    h.add_argument("--text", metavar='"The cat sat on the mat."', help=TEXT_HELP)
    h.add_argument("--json", action="store_true", help='JSON: {"heads": [{layer, head, mean_entropy_bits, ...}]}')
    h.add_argument(
        "--rollout",
        action="store_true",
        help="attention rollout across the layers (heads averaged, residual as half): R, T x T up to 512 tokens",
    )
    h.add_argument(
        "--query",
        metavar="t|ROWS",
        help='where query t (counted from 1) looks in each head: its five heaviest keys (JSON: each head\'s "query"); '
        "with --rollout: only these rows of R (e.g. 1,5)",
    )


def _backstop(name: str, fn, *args: Any):
    """fn(*args); anything but a ValueError (the doors' refusals) becomes one naming ``name``; the
    core's line about a layer or head (an InputError with its field) gets its flag."""
    from ..core.limits import printable, unexpected
    from ..core.models import InputError

    try:
        return fn(*args)
    except InputError as exc:
        if exc.field is None:
            raise
        raise ValueError(f"--{exc.field}: {exc}") from None  # the core names the input, the CLI its flag
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001  (the backstop: one line, never a traceback)
        raise ValueError(f"{printable(name)}: cannot be read or computed ({unexpected(exc)})") from None


def given_text(tokens: str | None, text: str | None) -> tuple[str | None, str]:
    """(the text a built-in model runs on, the flag that gave it) of --tokens and --text; ValueError
    (one line) when both are given."""
    if tokens is not None and text is not None:
        raise ValueError("--tokens and --text: give one, the text the built-in model reads")
    return (text, "--text") if text is not None else (tokens, "--tokens")


def opened(name: str, text: str | None, flag: str = "--tokens"):
    """open_heads(name, text), the core's line about the text prefixed with ``flag``."""
    from ..core.heads.door import open_heads
    from ..core.models import InputError

    try:
        return open_heads(name, text)
    except InputError as exc:
        raise ValueError(f"{flag}: {exc}") from None


def note_length(src) -> None:
    """One line on stderr when a built-in model reads a text longer than it was ever trained on (text-demo:
    its metadata's n_ctx_train, 256): the numbers are printed all the same, but they are out of its training."""
    entry = getattr(src, "model", None)
    line = entry.beyond_training(src.T) if entry is not None else None
    if line:
        say(f"attn-tui: note: {line}")


def run(args: Any) -> int:
    emit(render(args))  # checked, as report's and train's (a bare write raised a traceback)
    return EXIT_OK


def render(args: Any) -> str:
    """What `heads` prints (text or JSON); ValueError: one line naming what is wrong."""
    return _backstop(args.source, _run, args)


def open_first(name: str, tokens, flag: str = "--tokens"):
    """(HeadSource, its head 0.0's admitted Scenario) for `attn-tui --scenario NAME|FILE`: the
    explorer's multi-head door, its refusals and the backstop's one line naming the file."""
    return _backstop(name, _open_first, name, tokens, flag)


def _open_first(name: str, tokens, flag):
    from ..core.heads.admission import check_heads
    from ..core.limits import admit

    src = opened(name, tokens, flag)
    check_heads(src, name, [(0, 0)])  # the same line as `heads` and `report --layer 0 --head 0`
    return src, admit(named_head_scenario(src, name, 0, 0), large=True)


def named_head_scenario(src, name, layer: int, head: int):
    """core.heads.head_scenario, its refusal (a layer's mask no single head holds) naming the file as every
    other refusal of these doors does: a HeadSource keeps no path, so the door that opened it says it."""
    from ..core.heads.source import head_scenario
    from ..core.limits import printable
    from ..core.models import InputError

    try:
        return head_scenario(src, layer, head)
    except InputError:
        raise  # a layer or head not there: the backstop names its flag
    except ValueError as exc:
        line = str(exc)
        raise ValueError(line if line.startswith(printable(name)) else f"{printable(name)}: {line}") from None


def _run(args: Any) -> str:
    from ..core.heads.admission import check_heads
    from ..core.heads.source import check_head
    from ..report.heads_text import heads_json, heads_text

    src = opened(args.source, *given_text(args.tokens, args.text))
    note_length(src)
    if args.layer is not None:
        check_head(src, args.layer)
    layers = range(src.n_layers) if args.layer is None or args.rollout else [args.layer]
    check_heads(src, args.source, [(ly, h) for ly in layers for h in range(src.n_heads)])  # each head it computes
    if args.rollout:
        from ..report.rollout_text import rollout_json, rollout_text

        with progress_line("attn-tui heads --rollout: heads read") as progress:
            return (rollout_json if args.json else rollout_text)(src, args.query, progress)
    query = None if args.query is None else _position(args.query, src.T)
    with progress_line("attn-tui heads: heads read") as progress:
        return (heads_json if args.json else heads_text)(src, args.layer, query, progress)


def _position(text: str, T: int) -> int:
    """--query t without --rollout: one position from 1, returned from 0; ValueError: one line."""
    from ..core.numparse import digits_hint, whole_digits

    t = text.strip()
    if not (whole_digits(t) and 1 <= int(t) <= T):  # ASCII only: ١ and １２ were read as 1 and 12
        raise ValueError(
            f"--query: {t[:40]!r} is not a query position{digits_hint(t)}; give one of 1..{T} "
            "(several rows go with --rollout)"
        )
    return int(t) - 1


def report_scenario(args: Any):
    """For `report --scenario NAME|FILE --layer L --head H`: (that head's Scenario through the door's
    limits (limits.admit, the report's sizes), its W_O^(h) or None, its d_model and projections as the
    source knows them (core/heads/head_origin.py) or None), or None when the scenario is a single head (then
    --layer / --head are refused). A multi-head scenario without both is refused. An array file
    given with --layer/--head goes through the multi-head door, which names it when it refuses."""
    return _backstop(args.scenario, _report_scenario, args)


def _report_scenario(args: Any):
    from ..core.arrays_io import is_arrays_file
    from ..core.builtins import BUILTINS
    from ..core.heads.admission import check_heads
    from ..core.heads.demo import HEAD_BUILTINS
    from ..core.heads.door import open_heads
    from ..core.heads.head_origin import head_origin
    from ..core.heads.multihead_io import is_heads_file
    from ..core.heads.source import check_head
    from ..core.heads.weighting import source_w_o
    from ..core.limits import admit, printable

    name, picked = args.scenario, (args.layer, args.head)
    multi = name is not None and (name in HEAD_BUILTINS or is_heads_file(name))
    text, flag = given_text(getattr(args, "tokens", None), getattr(args, "text", None))
    if text is not None and name not in HEAD_BUILTINS:
        if name is not None and name not in BUILTINS and not os.path.lexists(name):  # said as such
            raise ValueError(
                f"{printable(name)}: no such file, and no built-in of that name "
                f"({flag} goes with a multi-head built-in: {', '.join(HEAD_BUILTINS)})"
            )
        raise ValueError(f"{flag} goes with a multi-head built-in ({', '.join(HEAD_BUILTINS)})")
    if not multi:
        if picked != (None, None):
            if name is not None and is_arrays_file(name):
                open_heads(name)  # the multi-head door's refusal, naming the file and what is wrong
            raise ValueError("--layer/--head: pick a head of a multi-head scenario (induction-demo, a multi-head file)")
        return None
    if None in picked:
        raise ValueError(
            f"{printable(name)}: a multi-head scenario; give --layer L --head H (from 0), "
            "or list every head with `attn-tui heads`"
        )
    src = opened(name, text, flag)
    note_length(src)
    check_head(src, *picked)
    check_heads(src, name, [picked])
    s = named_head_scenario(src, name, *picked)
    return admit(s, large=True), source_w_o(src, *picked), head_origin(src, *picked)

"""A kept session's state file as text: ``dumps`` writes a Kept, ``loads`` reads one back.

A header (format, when, why, name, edits, source), the view (row, cursor, the pin's row, and which head
of a multi-head source each scenario was: ``head``, ``past_heads``, ``future_heads``) and each scenario
as a multi-line string holding the same TOML ``scenario_io.dumps`` writes. Reading sends every scenario
through the door of any scenario file (``scenario_io.loads`` and ``limits.admit``), so a hostile state
file is refused with one line like a hostile scenario. A text is at most MAX_SESSION_BYTES (the oldest
undo steps are dropped to fit) and MAX_STEPS undo (and redo) steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import scenario_io as io
from .limits import admit, printable, shown
from .safe_read import loads_toml, outer_structure_problem
from .scenario import Scenario
from .scenario_write import toml_str
from .session_heads import count_edits, head_toml, read_head, read_step_heads, with_heads
from .session_kept import Kept, SessionError
from .session_tour import read_tour, tour_toml

if TYPE_CHECKING:
    from typing import Any

FORMAT = 1  # the header's `format`: a file of another format is ignored, with one line
KIND = "attn-tui session"
MAX_SESSION_BYTES = 16 * 2**20  # history beyond this is dropped, oldest first (the current scenario always fits)
MAX_STEPS = 50  # undo (and redo) steps kept: each is admitted, its trace computed, at the next launch


def _block(text: str) -> str:
    """``text`` as a TOML multi-line basic string (backslash, quote and control characters escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch != "\n" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"""\n' + "".join(out) + '"""'


def dumps(k: Kept) -> str:
    """The state file's text; undo steps past MAX_SESSION_BYTES are left out, the oldest first."""
    head = [
        f"format = {FORMAT}",
        f"kind = {toml_str(KIND)}",
        f"saved = {k.saved!r}",
        f"why = {toml_str(k.why)}",
        f"source = {toml_str(k.source)}",
        f"row = {k.row}",
    ]
    if k.cursor:
        head.append(f"cursor = [{toml_str(k.cursor[0])}, {int(k.cursor[1])}, {int(k.cursor[2])}]")
    if k.head is not None:
        head.append(f"head = {head_toml(k.head)}")
    if k.tour is not None:
        head += tour_toml(k.tour)
    if k.weighting != "A":
        head.append(f"weighting = {toml_str(k.weighting)}")
    body = [f"scenario = {_block(io.dumps(k.scenario))}"]
    if k.pin is not None:
        head.append(f"pin_row = {int(k.pin[1])}")
        body.append(f"pin = {_block(io.dumps(k.pin[0]))}")
    size = sum(len(x) for x in head + body)
    # (scenario, its head) per step, so that dropping the oldest drops both
    past = [(_block(io.dumps(s)), head_toml(h)) for s, h in with_heads(k.past, k.past_heads)[-MAX_STEPS:]]
    future = [(_block(io.dumps(s)), head_toml(h)) for s, h in with_heads(k.future, k.future_heads)[-MAX_STEPS:]]
    while past and size + _size(past + future) > MAX_SESSION_BYTES:
        past.pop(0)
    while future and size + _size(past + future) > MAX_SESSION_BYTES:
        future.pop(0)
    kept_heads = (k.past_heads or (None,) * len(k.past))[len(k.past) - len(past) :] if k.past_heads else ()
    head.append(f"edits = {count_edits(len(past), kept_heads, k.head)}")
    lists = [_list(key, [x for x, _ in items]) for key, items in (("past", past), ("future", future))]
    if k.past_heads or k.future_heads:
        lists += [_list(f"{key}_heads", [h for _, h in items]) for key, items in (("past", past), ("future", future))]
    return "\n".join(head + body + lists) + "\n"


def _size(items: list[Any]) -> int:
    return sum(len(x) + len(h) for x, h in items)


def _list(key: str, items: list[Any]) -> str:
    return f"{key} = [\n" + ",\n".join(items) + ",\n]" if items else f"{key} = []"


def _scenario(text: object, what: str, source: str) -> Scenario:
    if not isinstance(text, str):
        raise SessionError(f"{source}: {what} is {shown(text)}, not a scenario")
    try:
        return admit(io.loads(text, f"{source} ({what})"))
    except io.ScenarioError as exc:
        raise SessionError(str(exc)) from None
    except ValueError as exc:
        raise SessionError(f"{source} ({what}): {printable(exc)}") from None


def _int(data: Any, key: str, source: Any, default: int = 0) -> int:
    v = data.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**20:
        raise SessionError(f"{source}: {key} is {shown(v)}, not a row number")
    return v


def _header(data: dict[Any, Any], source: str) -> None:
    if data.get("kind") != KIND:
        raise SessionError(f"{source}: not an attn-tui session file")
    if data.get("format") != FORMAT:
        raise SessionError(
            f"{source}: from another version of attn-tui (format {shown(data.get('format'))}, "
            f"this one reads {FORMAT}); ignored"
        )
    for key in ("why", "source"):
        if not isinstance(data.get(key, ""), str):
            raise SessionError(f"{source}: {key} is {shown(data.get(key))}, not a text")
    saved = data.get("saved")
    if isinstance(saved, bool) or not isinstance(saved, (int, float)) or not 0 <= saved < 1e11:
        raise SessionError(f"{source}: saved is {shown(saved)}, not a time")


def _cursor(value: Any, source: Any) -> Any:
    if value is None:
        return None
    ok = isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and len(value[0]) <= 8
    if not ok or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**20 for x in value[1:]):
        raise SessionError(f"{source}: cursor is {shown(value)}, not [matrix, row, column]")
    return tuple(value)


def _weighting(data: Any, source: Any) -> str:
    from .heads.weighting import KINDS

    v = data.get("weighting", "A")
    if not isinstance(v, str) or v not in KINDS:
        raise SessionError(f"{source}: weighting is {shown(v)}, not one of {', '.join(KINDS)}")
    return v


def _history(data: Any, key: str, source: Any) -> tuple[Any, ...]:
    items = data.get(key, [])
    if not isinstance(items, list) or len(items) > MAX_STEPS:
        raise SessionError(f"{source}: {key} is {shown(items)}, not a list of at most {MAX_STEPS} scenarios")
    return tuple(_scenario(t, f"{key} step {i}", source) for i, t in enumerate(items, 1))


def loads(text: str, source: str = "<session>") -> Kept:
    """A Kept from a state file's text; SessionError (one line) for anything else."""
    import tomllib  # read when a kept session is (a launch with none does not import it: issue 32)

    source = printable(source)
    problem = outer_structure_problem(text)  # the scenario door's pre-scan, before tomllib builds anything
    if problem:
        raise SessionError(f"{source}: not a readable session file ({problem})")
    try:
        data = loads_toml(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise SessionError(f"{source}: not a readable session file ({printable(str(exc)[:80])})") from None
    _header(data, source)
    s = _scenario(data.get("scenario"), "scenario", source)
    pin = None
    if "pin" in data:
        pin = (_scenario(data["pin"], "pin", source), _int(data, "pin_row", source))
    past, future = _history(data, "past", source), _history(data, "future", source)
    try:
        head = read_head(data["head"], "head", source) if "head" in data else None
        heads = [read_step_heads(data, key, len(steps), source) for key, steps in (("past", past), ("future", future))]
        tour = read_tour(data, source)
    except ValueError as exc:  # the line naming the file and the key
        raise SessionError(str(exc)) from None
    return Kept(
        scenario=s,
        row=min(_int(data, "row", source), s.T - 1),
        cursor=_cursor(data.get("cursor"), source),
        pin=pin,
        past=past,
        future=future,
        why=printable(data.get("why", ""))[:40],
        source=printable(data.get("source", ""))[:300],
        saved=float(data["saved"]),
        head=head,
        past_heads=heads[0],
        future_heads=heads[1],
        tour=tour,
        weighting=_weighting(data, source),
    )

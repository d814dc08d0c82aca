"""Which head of a multi-head source a kept session's scenarios were (core/session_toml.py writes
and reads them; tui/session.py makes them from the State's HeadRef and reopens the source).

In the state file, ``head = {name, layer, head, tokens}`` beside the scenario, and ``past_heads`` /
``future_heads``: one such table per undo step, ``{}`` for a step that was no head. Reading refuses
anything else with one line naming the file and the key (a ValueError; session_toml makes it a
SessionError), so a hostile or stale file is ignored like one with a bad scenario.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .limits import printable, shown
from .scenario_write import toml_str

if TYPE_CHECKING:
    from typing import Any

MAX_HEAD_NAME = 4096  # a kept head's source: a built-in's name or a file's path (PATH_MAX)
# the text a built-in model ran on: text-demo's 1,024 tokens, each at most a few dozen bytes
MAX_HEAD_TEXT = 65536
TEXT_WHITESPACE = "\n\t\r"  # a text's own line breaks and tabs (the control characters it may hold)


class HeadAt(NamedTuple):
    """Which head of a multi-head source a kept scenario was: the source as opened (a built-in's
    name or a file's absolute path), its layer and head (from 0), and the tokens a built-in model
    ran on ('' for a file, whose tokens are its own). The restore reopens the source from these."""

    name: str
    layer: int
    head: int
    tokens: str = ""


def storable_text(text: str) -> bool:
    """A text a state file keeps: no control character but its own line breaks and tabs, no lone
    surrogate, at most MAX_HEAD_TEXT characters."""
    plain = text.translate({ord(ch): " " for ch in TEXT_WHITESPACE})
    return len(text) <= MAX_HEAD_TEXT and printable(plain) == plain


def head_toml(h: HeadAt | None) -> str:
    """``h`` as a TOML inline table; {} for a step that was no head of a multi-head source."""
    if h is None:
        return "{}"
    name, tokens = toml_str(h.name), toml_str(h.tokens)
    return f"{{name = {name}, layer = {int(h.layer)}, head = {int(h.head)}, tokens = {tokens}}}"


def with_heads(scenarios: tuple[Any, ...], heads: tuple[Any, ...]) -> list[Any]:
    """(scenario, HeadAt or None) per undo step (dumps, the restore); ``heads`` is () when no step was a head."""
    return list(zip(scenarios, heads or (None,) * len(scenarios), strict=True))


def count_edits(n: int, step_heads: tuple[Any, ...], head: HeadAt | None) -> int:
    """How many of ``n`` undo steps changed a scenario: a step from one head of a multi-head source to
    another (``step_heads``: each step's head, () when none was a head; ``head``: the state's) is a
    move, not an edit, as SessionKeeper.has_edits judges; a step to a built-in's new text (`i`: the same
    source run on another sentence, its tokens changed) is an edit."""
    if not step_heads and head is None:
        return n
    heads = [*(step_heads or (None,) * n), head]
    return sum(a == b or _new_text(a, b) for a, b in zip(heads, heads[1:]))


def _new_text(a: HeadAt | None, b: HeadAt | None) -> bool:
    """True when step ``a`` -> ``b`` ran the same built-in on another text."""
    return a is not None and b is not None and a.name == b.name and a.tokens != b.tokens


KEYS = ("name", "layer", "head", "tokens")


def read_head(value: Any, key: str, source: str, step: bool = False) -> HeadAt | None:
    """A HeadAt from ``{name, layer, head, tokens}``; None from an undo step's {} (no head)."""
    if step and value == {}:
        return None
    bad = f"{source}: {key} is {shown(value)}, not {{name, layer, head, tokens}} of a multi-head source"
    if not isinstance(value, dict) or not set(value) <= set(KEYS) or "name" not in value:
        raise ValueError(bad)
    name, tokens = value["name"], value.get("tokens", "")
    if not isinstance(name, str) or len(name) > MAX_HEAD_NAME or printable(name) != name:
        raise ValueError(bad)  # a name that prints as itself: no control character, no lone surrogate
    if not isinstance(tokens, str) or len(tokens) > MAX_HEAD_TEXT or not storable_text(tokens):
        raise ValueError(bad)
    if not name:
        raise ValueError(bad)
    at = [value.get(n, 0) for n in ("layer", "head")]
    if not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**20 for x in at):
        raise ValueError(bad)
    return HeadAt(name, at[0], at[1], tokens)


def read_step_heads(data: Any, key: str, n: int, source: str) -> tuple[Any, ...]:
    """One HeadAt or None per undo step of ``key`` (n of them); () when the file has none."""
    items = data.get(f"{key}_heads")
    if items is None:
        return ()
    if not isinstance(items, list) or len(items) != n:
        raise ValueError(f"{source}: {key}_heads is {shown(items)}, not one head (or {{}}) per {key} step")
    return tuple(read_head(h, f"{key}_heads step {i}", source, step=True) for i, h in enumerate(items, 1))

"""The tour's place and answers in a kept session (session_toml.py writes and reads them).

``tour_page`` names the page the learner was on, ``tour_answers`` each question answered as
[page key, question index, prediction] (the text "skipped" for a skipped one). The core's answer is
not kept: the tour grades the prediction again when it is restored, against the answer then.
Read like every other key of a state file: a wrong type or size is one line naming the file and
the key; keys of pages this version does not have are dropped by the tour (it knows its pages).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

MAX_ANSWERS = 200  # the tour has about 40 questions: room to grow, no room for a hostile list
KEY = re.compile(r"^[A-Za-z0-9_-]{1,32}$")  # a page key
SKIPPED = "skipped"


@dataclass(frozen=True)
class TourAt:
    """page: the page's key. answers: ((page key, question index, prediction or None: skipped), ...)."""

    page: str
    answers: tuple[Any, ...] = ()


def tour_toml(t: TourAt) -> list[str]:
    """The state file's lines for ``t``."""

    def item(key: str, i: int, p: float | None) -> str:
        return f'["{key}", {int(i)}, {f"{SKIPPED!r}" if p is None else repr(float(p))}]'.replace("'", '"')

    return [f'tour_page = "{t.page}"', f"tour_answers = [{', '.join(item(*a) for a in t.answers)}]"]


def read_tour(data: dict[Any, Any], source: str) -> TourAt | None:
    """The TourAt of a state file's ``data``, None when it holds none; ValueError naming the key."""
    if "tour_page" not in data:
        return None
    page = data["tour_page"]
    if not isinstance(page, str) or not KEY.match(page):
        raise ValueError(f"{source}: tour_page is not a page name")
    items = data.get("tour_answers", [])
    if not isinstance(items, list) or len(items) > MAX_ANSWERS:
        raise ValueError(f"{source}: tour_answers is not a list of at most {MAX_ANSWERS} answers")
    return TourAt(page, tuple(_answer(x, n, source) for n, x in enumerate(items, 1)))


def _answer(x: Any, n: int, source: str) -> tuple[Any, ...]:
    bad = ValueError(f"{source}: tour_answers item {n} is not [page, question, prediction]")
    if not isinstance(x, list) or len(x) != 3:
        raise bad
    key, i, p = x
    if not isinstance(key, str) or not KEY.match(key) or isinstance(i, bool) or not isinstance(i, int):
        raise bad
    if not 0 <= i < 64:
        raise bad
    if p == SKIPPED:
        return key, i, None
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
        raise bad
    return key, i, float(p)

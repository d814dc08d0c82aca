"""The one table of mask kinds: name, how a file writes it, what it hides and how it is applied.
Code asks MASK_KINDS (as it asks core/matrices.py's MATRICES) and never compares a kind's name:
a new kind (a prefix-LM mask, say) is one row here, and tests/test_house_masks.py keeps the rule.

A Scenario holds a kind's name (``mask``) and a window's width (``window``); a multi-head file
holds one text a layer ("causal", "none", "window:W", "additive": parse and written), read into
(name, W or None). Each rule kind says which keys a query t may not see (``rule``), and, for the
streaming core that counts without a T x T' matrix, the first and last key each query may see
(``span``); both before padding, which blocks its keys for every query on top of any kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

# numparse.whole_digits's rule (ASCII digits, at most MAX_NUMBER_CHARS = 32), kept here: numparse imports
# limits, which imports attention, which reads this table
_WIDTH = re.compile(r"[0-9]{1,32}")


@dataclass(frozen=True)
class MaskKind:
    name: str
    called: str  # the kind in a sentence ("a causal mask")
    scenario: bool  # a Scenario (the explorer, a scenario file) may hold it; else a model's layer only
    hides: bool  # it may hide a key from a query ("none" hides none): it reads positions, so T' = T matters
    future: bool  # every key after its query is hidden: a query row sees keys 0..t at most
    causal: bool  # exactly the keys after the query are hidden: token t reads tokens 1..t (the lesson's mask)
    windowed: bool  # it takes a width W >= 1 (Scenario.window; a file writes "name:W")
    stored: bool  # M is given, not a rule: a layer's additive mask read from the file's M
    # (t (T, 1), i (1, T'), W) -> (T, T') bool, True where query t may not see key i; plain operators
    # only where it hides a key, so the same rule runs on torch tensors (capture/check_torch.py)
    rule: Callable[..., Any] | None
    # (t (n,) query positions, T', W) -> (first, last) (n,) each: the keys query t may see are first..last
    span: Callable[..., Any] | None
    short: str = ""  # the status bar's name when shorter than name ("win")


def _nothing(t: Any, i: Any, w: Any) -> Any:  # arrays or torch tensors (rule above)
    return np.zeros(np.broadcast_shapes(np.shape(t), np.shape(i)), dtype=bool)


def _causal(t: Any, i: Any, w: Any) -> Any:
    return i > t


def _window(t: Any, i: Any, w: Any) -> Any:
    return (i > t) | (i <= t - int(w))


def _all_keys(t: np.ndarray, T_k: int, w: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(t.size, dtype=int), np.full(t.size, T_k - 1)


def _up_to_t(t: np.ndarray, T_k: int, w: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(t.size, dtype=int), np.minimum(t, T_k - 1)


def _last_w(t: np.ndarray, T_k: int, w: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.maximum(0, t - int(w) + 1), np.minimum(t, T_k - 1)


MASK_KINDS: dict[str, MaskKind] = {
    k.name: k
    for k in (
        # name, called, scenario, hides, future, causal, windowed, stored, rule, span
        MaskKind("causal", "a causal mask", True, True, True, True, False, False, _causal, _up_to_t),
        MaskKind("none", "no mask", True, False, False, False, False, False, _nothing, _all_keys),
        MaskKind("window", "a sliding window", True, True, True, False, True, False, _window, _last_w, short="win"),
        MaskKind("additive", "an additive mask", False, True, False, False, False, True, None, None),
    )
}

#: The kind that hides no key ("none"), and the kind a model's own M is kept as ("additive").
NO_MASK = next(n for n, k in MASK_KINDS.items() if not k.hides)
STORED = next(n for n, k in MASK_KINDS.items() if k.stored)
#: The kinds a Scenario may hold, in the picker's order: causal, none, window.
SCENARIO_KINDS = tuple(n for n, k in MASK_KINDS.items() if k.scenario)


def spoken(names: Any) -> str:
    """``a, b or c``: the names of a refusal's choices."""
    names = list(names)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def rule_of(name: str) -> Callable[..., Any]:
    """The rule of the rule kind ``name`` (its callers ask only of kinds whose ``rule`` is not None)."""
    rule = MASK_KINDS[name].rule
    assert rule is not None  # a rule kind: the callers keep those only
    return rule


def takes_width(name: str) -> bool:
    """Does the kind named ``name`` take a width? False for anything that names no kind."""
    return isinstance(name, str) and name in MASK_KINDS and MASK_KINDS[name].windowed


def label(name: str, window: Any | None = None, short: bool = False) -> str:
    """A kind as the status bar, the modes line and the heads report show it: "causal", "window 3"."""
    kind = MASK_KINDS[name]
    shown = (kind.short or name) if short else name
    return f"{shown} {window}" if kind.windowed else shown


def of_label(text: str) -> MaskKind:
    """The kind a label (label's "causal", "window 3") names."""
    return MASK_KINDS[text.split(" ")[0]]


def written(name: str, window: Any | None = None) -> str:
    """A kind as a multi-head file writes it: "causal", "window:W"."""
    return f"{name}:{window}" if MASK_KINDS[name].windowed else name


def parse(text: str) -> tuple[str, int | None] | None:
    """(name, W or None) of a kind as written ("causal", "window:W" with W >= 1); None when ``text``
    writes no kind."""
    if not isinstance(text, str):
        return None
    name, colon, width = text.partition(":")
    kind = MASK_KINDS.get(name)
    if kind is None or kind.windowed != bool(colon):
        return None
    if not kind.windowed:
        return name, None
    return (name, int(width)) if _WIDTH.fullmatch(width) and int(width) >= 1 else None


def choices_written() -> str:
    """The written kinds a file may hold, as a refusal lists them: "causal, none, window:W (W >= 1) or additive"."""
    return spoken(written(n, "W") + (" (W >= 1)" if k.windowed else "") for n, k in MASK_KINDS.items())

"""Which head of a multi-head source the explorer shows, and the pure moves between heads.

A State holds a ``HeadRef`` beside its scenario when the scenario is one head of a HeadSource
(core/heads: the induction-demo built-in, a multi-head file); single-head scenarios have none and
work as before. Moving to another head makes that head's Scenario (head_scenario: its Q, K, V,
the layer's mask and scale) and keeps the row, the cell cursor and the pin, so a pinned head is
compared with the next one. No Textual here: the State and its tests use it alone.
core.heads (the model, the file readers) is imported by the functions that open or read a
source, not here: a single-head launch never loads it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.limits import MAX_TITLE, admit, check_values, clean_label
from ..core.numparse import whole_digits

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario

    from ..core.heads import HeadSource


@dataclass(frozen=True)
class HeadRef:
    """Head ``head`` of layer ``layer`` (both from 0) of ``source``, opened as ``name`` (a built-in
    or a path: what a new --tokens reopens)."""

    source: HeadSource
    layer: int
    head: int
    name: str
    labels: tuple = ()  # (tokens, key_tokens) as the door admitted them for the first head: every head's

    def label(self) -> str:
        """'layer 1 · head 3 of 8': the status line's words (layers and heads from 0)."""
        return f"layer {self.layer} · head {self.head} of {self.source.n_heads}"

    def short(self) -> str:
        return f"L{self.layer}.H{self.head}"


ONE_HEAD = "one head here: heads come with induction-demo or a multi-head file (o opens one, or --scenario)"


def is_multi(name: str) -> bool:
    """True when ``name`` is a multi-head built-in or a multi-head array file (headers only; a file
    whose headers do not read as one is not, and the single-head door refuses it with its line)."""
    from ..core.heads.demo import HEAD_BUILTINS
    from ..core.heads.multihead_io import is_heads_file

    return name in HEAD_BUILTINS or is_heads_file(name)


# The Scenarios of the heads next to the one shown, made by the app's worker after each move
# (prefetch), so `>` / `<` cost only the trace, as `+` does. Keyed by the source's identity.
_READY: OrderedDict = OrderedDict()  # (id(source), layer, head) -> (source, Scenario)
KEEP = 8
# and at most this many bytes of their arrays: 8 heads of 16,384 tokens x d_k 256 in float64 (96 MiB each)
# were 768 MiB kept for a file of a few KB (issue 52: no file under 1 MB takes 500 MB on any screen)
KEEP_BYTES = 128 * 2**20
_LOCK = threading.Lock()


def _nbytes(s: Scenario) -> int:
    return sum(getattr(a, "nbytes", 0) for a in (s.X, s.Y, s.Q, s.K, s.V, s.W_Q, s.W_K, s.W_V))


def scenario_of(ref: HeadRef):
    """The Scenario of ``ref``'s head through the explorer's door (ValueError: one line), made
    once (a prefetched neighbour is taken as made). The whole door (limits.admit) for the first
    head and for float16; for another head of a float32/64 source its Q, K, V values only: the
    labels are the first head's, and with |x| <= 1e6 and d_k <= limits.MAX_WIDTH no product can overflow float32, so
    a move costs no second trace."""
    key = (id(ref.source), ref.layer, ref.head)
    with _LOCK:
        hit = _READY.get(key)
    if hit is not None and hit[0] is ref.source and ref.labels:
        return hit[1]
    s = _admitted(ref)
    if ref.labels:
        with _LOCK:
            _READY[key] = (ref.source, s)
            while len(_READY) > KEEP or (len(_READY) > 1 and sum(_nbytes(v[1]) for v in _READY.values()) > KEEP_BYTES):
                _READY.popitem(last=False)
    return s


def _admitted(ref: HeadRef):
    from ..core.heads import head_scenario

    s = head_scenario(ref.source, ref.layer, ref.head)
    if not ref.labels or s.dtype == "float16":
        return admit(s, large=True)
    for name in ("Q", "K", "V"):
        check_values(name, getattr(s, name))
    tokens, key_tokens = ref.labels
    title = clean_label(s.title, "title", ValueError, MAX_TITLE, "title")
    return s.with_(title=title, tokens=tokens, key_tokens=key_tokens)


def prefetch(ref: HeadRef) -> None:
    """Make the Scenarios of the next and previous heads (a worker calls this after each move)."""
    for near in (stepped(ref, d_head=1), stepped(ref, d_head=-1)):
        try:
            scenario_of(near)
        except ValueError:
            pass  # refused when moved to, with its line


def open_ref(name: str, tokens: str | None = None, layer: int = 0, head: int = 0):
    """(Scenario, HeadRef) of head ``layer.head`` of the multi-head ``name``, run on ``tokens``
    when given (a built-in model only). ValueError with one line: an unknown token, too many
    tokens, a bad file, a layer or head that is not there."""
    from ..core.heads import open_heads

    return first_head(open_heads(name, tokens), name, layer, head)


def first_head(src: HeadSource, name: str, layer: int = 0, head: int = 0, admitted=None):
    """(Scenario, HeadRef) of head ``layer.head`` of ``src`` opened as ``name``; ``admitted``: that
    head's Scenario when a door (attn_tui/cli) has already admitted it."""
    first = admitted if admitted is not None else scenario_of(moved(HeadRef(src, 0, 0, name), layer, head))
    ref = HeadRef(src, layer, head, name, (first.tokens, first.key_tokens))
    return first.with_(focus_row=repeat_row(src)), ref


def repeat_row(src: HeadSource) -> int | None:
    """The first query row (from 1) whose token occurred before: where an induction head shows
    what it does (the explorer opens there); None when no token repeats or keys are another sequence."""
    from ..core.heads.readings import previous_occurrence

    if src.T_k != src.T:
        return None
    earlier = previous_occurrence(src.ids)
    return next((t + 1 for t, j in enumerate(earlier) if j >= 0), None)


def moved(ref: HeadRef, layer: int, head: int) -> HeadRef:
    """``ref`` on head ``layer.head``; ValueError naming a layer or head outside the source."""
    src = ref.source
    if not 0 <= layer < src.n_layers:
        raise ValueError(f"layer {layer} is not there: this source has layers 0..{src.n_layers - 1}")
    if not 0 <= head < src.n_heads:
        raise ValueError(f"head {head} is not there: this source has heads 0..{src.n_heads - 1} per layer")
    return HeadRef(src, layer, head, ref.name, ref.labels)


def stepped(ref: HeadRef, d_head: int = 0, d_layer: int = 0) -> HeadRef:
    """The next (d = 1) or previous (d = -1) head, wrapping into the next or previous layer at the
    ends; or the same head in the next / previous layer (d_layer), wrapping around the layers."""
    src = ref.source
    if d_layer:
        return moved(ref, (ref.layer + d_layer) % src.n_layers, ref.head)
    flat = (ref.layer * src.n_heads + ref.head + d_head) % (src.n_layers * src.n_heads)
    return moved(ref, flat // src.n_heads, flat % src.n_heads)


def parse_head(text: str, ref: HeadRef) -> HeadRef:
    """'1.3' (or '1 3', 'L1.H3') -> head 3 of layer 1; ValueError with one line otherwise."""
    cleaned = text.strip().lower().replace("l", " ").replace("h", " ").replace(".", " ").replace(",", " ")
    parts = cleaned.split()
    if len(parts) != 2 or not all(whole_digits(p) for p in parts):  # ASCII: ١ was layer 1
        raise ValueError(f"head: {text.strip()[:40]!r} is not LAYER.HEAD; type e.g. 1.3 (both from 0)")
    return moved(ref, int(parts[0]), int(parts[1]))

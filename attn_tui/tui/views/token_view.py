"""The token view (key `T`): the sequence as text, each token shaded by the weight one query gives it.

Two directions (the screen's ``f`` flips them), both read off the State's trace, the grids' A:

- "out", who does t look at: row t of A, the weights query t gives each key (the text is the keys);
- "in", who looks at t: column t of A, the weight each query gives key t (the text is the queries).

The shade is A's own colour scale (palette.buckets "seq", the grid's buckets of [0, 1]); a key the
mask hides is marked masked (the grid's struck cell), not shaded as a 0. One row of A is all a move
reads (a large trace's row from its row block, never a T x T' matrix); a column of a large trace
needs every row's softmax, so the screen reads it in a worker (``weights_of``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core.heads.query_top import top_keys
from ...core.token_bytes import BYTE_MARK, PARTIAL
from ..state import State

OUT, IN = "out", "in"
BLOCKED, NAN = -2, -1  # codes beside a bucket index (the grid's: widgets/grid_cells.py)
WEIGHTED = {"value": "value-weighted A·‖v‖", "info": "info-weighted A·‖vW_O‖"}  # key W (views/weighting.py)
GLYPH_NOTE = "bar after each token = its weight, ▁ 0 … █ 1 (no colour scale here); × masked"


class Weights(NamedTuple):
    """The weights of one direction: ``values`` (n,) and ``seen`` (n,) (False: masked)."""

    direction: str
    at: int  # t (out) or the key t (in), 0-based (not `index`: a tuple method)
    values: np.ndarray
    seen: np.ndarray


class TokenView(NamedTuple):
    """What the token view draws (widgets/token_text.py) and says around it."""

    texts: tuple  # each token's text as drawn
    joined: bool  # True: the tokens carry their own spaces (a tokenizer's); False: one space between
    weights: np.ndarray  # (n,) what each token is shaded by; NaN where masked
    seen: np.ndarray  # (n,) bool
    selected: int | None  # the token outlined (the query, or the key looked at)
    title: str
    top: str  # the five heaviest, with position, token and weight


def weights_of(state: State, direction: str, index: int) -> Weights:
    """Row ``index`` of A (out) or its column (in), with what the mask hides, from the State's trace."""
    tr = state.trace
    if direction == OUT:
        values, blocked = tr.A[index], tr.blocked[index]
    else:
        values, blocked = tr.A[:, index], tr.blocked[:, index]
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    scale = state.key_scale  # the weighting (key W): each key's size over the largest's, None for A as is
    if scale is not None:
        values = values * (scale if direction == OUT else scale[index])
    return Weights(direction, index, values, ~np.asarray(blocked, dtype=bool).reshape(-1))


ROLLOUT = "rollout R (every layer: heads averaged, Ã = ½Ā + ½I)"


def rollout_weights(state: State, direction: str, index: int) -> Weights:
    """Row ``index`` of the attention rollout R of the State's whole model (out), or its column (in,
    up to rollout.WHOLE tokens); core/heads/rollout.py. ValueError (one line): one head, keys that are
    another sequence, a column of more tokens. Every key is counted as seen: R carries no mask of its own."""
    from ...core.heads import rollout as ro

    if state.head is None:
        raise ValueError("rollout: one head here; the rollout is read across the layers of a multi-head source")
    src = state.head.source
    if direction == OUT:
        values = ro.rollout_rows(src, [index])[0]
    elif src.T > ro.WHOLE:
        raise ValueError(f"rollout: a column of R needs all of R, given up to {ro.WHOLE} tokens (f back: its rows)")
    else:
        values = ro.rollout(src)[:, index]
    return Weights(direction, index, np.asarray(values, dtype=np.float64), np.ones(len(values), dtype=bool))


def texts_of(state: State, direction: str) -> tuple[tuple, bool]:
    """(texts, joined): the tokens of the side shown, as the model reads them. A captured model's
    tokens carry their own leading spaces (capture_check.token_label: " cat"), so they are joined
    as written; hand-made labels ("mat", "q") get a space between."""
    s = state.scenario
    tokens = s.keys if direction == OUT else s.tokens
    src = state.head.source if state.head is not None else None
    if src is None or not src.raw_tokens:
        return tuple(tokens), False
    # a built-in's text as typed (a character split over tokens drawn once: token_bytes.drawn_texts);
    # a file's labels keep the spaces the door's cleaned labels drop (" cat", not "cat")
    own = (src.key_tokens or src.tokens) if direction == OUT else src.tokens
    if src.drawn and not src.key_tokens:
        own = src.drawn
    return (tuple(own), True) if len(own) == len(tokens) else (tuple(tokens), False)


def who(tokens, j: int) -> str:
    """Token j (0-based) with its position, as the lesson writes them ("t4 it"); a label that already
    starts with its position (the lesson's own "t4 it") is not given it twice."""
    tok = str(tokens[j]).strip() or str(tokens[j])
    pos = f"t{j + 1}"
    return tok if tok == pos or tok.startswith(pos + " ") else f"{pos} {tok}"


def token_view(state: State, w: Weights, rollout: bool = False) -> TokenView:
    """The view of ``w`` (weights_of, or rollout_weights when ``rollout``) on ``state``'s tokens."""
    s = state.scenario
    texts, joined = texts_of(state, w.direction)
    here = s.tokens if w.direction == OUT else s.keys
    t = who(here, w.at)
    selected = w.at if s.T == s.T_k and not s.cross else None  # the token t is in the text shown
    name = ROLLOUT if rollout else WEIGHTED.get(state.weighting_shown, "A")
    if w.direction == OUT:
        title = f"who does {t} look at: row {w.at + 1} of {name}, the weight it gives each key"
    else:
        title = f"who looks at {t}: column {w.at + 1} of {name}, the weight each query gives it"
    if rollout:
        # an estimate under rollout's assumptions (values, W_O, MLPs left out), not a measured share
        title = title.replace("the weight it gives each key", f"its estimate of what t{w.at + 1} draws from each token")
        title = title.replace("the weight each query gives it", "its estimate of what each position draws from it")
    top = top_keys(w.values, w.seen)
    names = s.keys if w.direction == OUT else s.tokens  # the labels (a split character's bytes as <C3>)
    listed = " · ".join(f"{who(names, j)} {a:.3f}" for j, a in top) or "none: every key is masked"
    what = "keys it looks at most" if w.direction == OUT else "queries that look at it most"
    shown = np.where(w.seen, w.values, np.nan)
    return TokenView(texts, joined, shown, w.seen, selected, title, f"{what}: {listed}")


def marks(texts: tuple) -> str:
    """What the signs in a tokenizer's text stand for, those it shows: ◌ (token_bytes.PARTIAL), ␣, ↵."""
    said = []
    if any(PARTIAL in t for t in texts):
        said.append(f"{PARTIAL} a byte of a character a later token completes (listed as its bytes, <C3>)")
    if any("␣" in t for t in texts):
        said.append("␣ a token that is a space")
    if any("<" in t and BYTE_MARK.search(t) for t in texts):
        said.append("<C3> a byte of no whole character")
    return " · ".join(said)


def beyond_training(state: State) -> str | None:
    """The line a built-in model's text longer than it was trained on gets (core/models), else None."""
    entry = getattr(state.head.source, "model", None) if state.head is not None else None
    return entry.beyond_training(state.scenario.T) if entry is not None else None


def legend(
    glyphs: bool, state: State | None = None, rollout: bool = False, joined: bool = False, texts: tuple = ()
) -> str:
    """The line under the text: what the shades mean (and the glyphs, when colours are not shown); under
    a weighting (key W), what is weighted and why the weights sum to less than 1. The rollout R is
    the model's own A, weighted by nothing (W, c, the mask and edits do not change it): it says so instead.
    ``joined``: a captured text, its tokens side by side with no space for brackets: the query is
    underlined only, and the legend says that, not "[ ]"; ``texts``: its tokens as drawn, whose signs
    (◌ ␣ <C3>) it says the meaning of. A built-in model's text longer than it was trained on says so first."""
    scale = GLYPH_NOTE if glyphs else "shade = weight, A's colour scale (dark 0 … bright 1); struck through: masked"
    query = "underlined: the query" if joined else "[ ] the query"
    if joined and not glyphs:  # the widget's italics (widgets/token_text.py); the glyphs mark tokens already
        query += " · every other token in italics: where tokens meet"
    words = f"{scale} · {query} · numbers under the text: positions · f flips who looks at whom"
    signs = marks(texts) if joined else ""
    words = f"{signs} · {words}" if signs else words
    note = beyond_training(state) if state is not None else None
    words = f"{note} · {words}" if note else words
    if rollout:
        return f"R is read from the model's own weights: W, c, the mask and edits do not change it · {words}"
    if state is not None and state.weighting_shown != "A":
        from .weighting import weighting_words

        words = f"{weighting_words(state)} · {words}"
    return words

"""What each grid pane of the pipeline shows, read off a State (no computing here).

grid_view(name, state) -> GridView (values, labels, palette, mask, title) or None when
the scenario has no such matrix (a Q/K scenario has no X or W; only cross-attention has Y).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.diagnose import ceiling_bits
from ..state import State

# Grids whose rows are the query tokens: their cursor row is the selected query row.
ROW_LINKED = frozenset({"X", "Q", "S", "M", "A", "O", "H"})

# name -> one sentence, in the lesson's words, for the help screen.
PANE_HELP = {
    "X": "X (T×d_model): row t is the embedding of token t; here one-hot features [noun, verb, adjective, "
         "pronoun, spare, spare] so the arithmetic can be followed by eye.",
    "Y": "Y (T'×d_model): cross-attention — keys and values come from this second sequence while queries "
         "still come from X.",
    "W_Q": "W_Q (d_model×d_k): what each kind of token LOOKS FOR (a pronoun looks for the noun it stands for).",
    "W_K": "W_K (d_model×d_k): what each kind of token ADVERTISES, on the same dims as the queries.",
    "W_V": "W_V (d_model×d_v): what a token HANDS OVER when selected. The title counts the parameters of the "
           "three projections, d_model(2d_k + d_v).",
    "Q": "Q = X W_Q (T×d_k): one query per token — what it's looking for.",
    "K": "K = X W_K (T'×d_k): one key per token — what it advertises. Queries and keys are different maps "
         "because what a token asks for and what it advertises are different things.",
    "V": "V = X W_V (T'×d_v): one value per token — what it contributes if selected (the identity when Q "
         "and K are given directly, so O = A).",
    "S": "S = c·QKᵀ/√d_k (T×T'): entry (t, i) is the dot product q_t·k_i — a raw similarity between query t "
         "and key i — divided by √d_k so the scores keep unit variance whatever d_k is; c is the knob.",
    "M": "M (T×T'): the causal mask, 0 where i ≤ t and a large finite negative number (−10⁹) where i > t, "
         "so token t cannot see the future. Blocked cells are grey; in float16 −10⁹ overflows to −∞.",
    "A": "A = softmax(S + M) (T×T'): softmax on each row turns the scores into a probability distribution "
         "over the keys query t may see; the masked entries become exactly 0 (struck through).",
    "O": "O = A V (T×d_v): row t is the attention-weighted mix of the value rows — token t retrieves what "
         "the keys it matched hand over. Columns are the value features.",
    "H": "Entropy table: H(A_t) = −Σ_i A_t,i log₂ A_t,i in bits measures how spread row t is, against the "
         "ceiling log₂t (uniform over the t visible keys; with padding or a window, log₂ of the keys the row can "
         "see, and — when it sees none); 2^H is the effective number of tokens attended.",
}


@dataclass(frozen=True)
class GridView:
    values: np.ndarray
    rows: tuple
    cols: tuple
    kind: str  # "seq" | "div" | "mask" | "plain"
    title: str
    blocked: np.ndarray | None = None
    selected: bool = False  # highlight the selected query row
    short: str = ""  # the title when the pane is too narrow for ``title``, e.g. "S (5×5)"


def _shape(a) -> str:
    return f"({a.shape[0]}×{a.shape[1]})"


def grid_view(name: str, state: State) -> GridView | None:
    s, tr = state.scenario, state.trace
    toks, keys_ = s.tokens, s.keys
    if name in ("X", "W_Q", "W_K", "W_V", "Y"):
        a = getattr(s, name)
        if a is None:
            return None
        if name == "X":
            return GridView(a, toks, s.features, "div", f"X tokens×features {_shape(a)}", selected=True,
                            short=f"X {_shape(a)}")
        if name == "Y":
            return GridView(a, keys_, s.features, "div", f"Y key tokens×features {_shape(a)}",
                            short=f"Y {_shape(a)}")
        title = f"{name} {_shape(a)}"
        if name == "W_V":
            title += f" · {s.d_model * (2 * s.d_k + s.d_v)} params"
        cols = tuple(f"{name[-1].lower()}{j + 1}" for j in range(a.shape[1]))
        return GridView(a, s.features, cols, "div", title, short=f"{name} {_shape(a)}")
    src = "Y" if s.cross else "X"
    if name == "Q":
        t = f"Q = X W_Q {_shape(tr.Q)}" if s.projected else f"Q {_shape(tr.Q)}"
        return GridView(tr.Q, toks, _dims("d", tr.Q.shape[1]), "div", t, selected=True,
                        short=f"Q {_shape(tr.Q)}")
    if name == "K":
        t = f"K = {src} W_K {_shape(tr.K)}" if s.projected else f"K {_shape(tr.K)}"
        return GridView(tr.K, keys_, _dims("d", tr.K.shape[1]), "div", t, short=f"K {_shape(tr.K)}")
    if name == "V":
        t = f"V = {src} W_V {_shape(tr.V)}" if s.projected else (
            f"V {_shape(tr.V)}" if s.V is not None else f"V = I {_shape(tr.V)}")
        return GridView(tr.V, keys_, s.value_features, "div", t, short=f"V {_shape(tr.V)}")
    if name == "S":
        t = "S = c·QKᵀ/√d_k" if s.scaled else "S = c·QKᵀ (unscaled)"
        short = f"S {_shape(tr.S)}" if s.scaled else f"S unscaled {_shape(tr.S)}"
        return GridView(tr.S, toks, keys_, "div", f"{t} {_shape(tr.S)}", tr.blocked, True, short)
    if name == "M":
        return GridView(tr.M, toks, keys_, "mask", f"M {s.mask}, fill {s.fill} {_shape(tr.M)}", tr.blocked, True,
                        f"M {s.mask} {_shape(tr.M)}")
    if name == "A":
        return GridView(tr.A, toks, keys_, "seq", f"A = softmax(S + M) {_shape(tr.A)}", tr.blocked, True,
                        f"A {_shape(tr.A)}")
    if name == "O":
        return GridView(tr.O, toks, s.value_features, "div", f"O = A V {_shape(tr.O)}", selected=True,
                        short=f"O {_shape(tr.O)}")
    if name == "H":
        ceiling = ceiling_bits(tr.blocked)  # log₂(visible keys); NaN (drawn "—") when none is visible
        vals = np.column_stack([ceiling, tr.H, tr.eff])
        none = np.zeros(vals.shape, dtype=bool)
        none[:, 0] = np.isnan(ceiling)
        return GridView(vals, toks, ("log₂t", "H", "2^H"), "plain", "entropy H(A_t), bits", none, True,
                        "H(A_t) bits")
    raise KeyError(name)


def _dims(prefix: str, n: int) -> tuple:
    return tuple(f"{prefix}{j + 1}" for j in range(n))

"""What each grid pane shows, read off a State (no computing here).

grid_view(name, state) -> GridView (values, labels, palette, mask, title) or None when
the scenario has no such matrix (a Q/K scenario has no X or W; only cross-attention has Y).
Labels and which grids follow the query row come from the core's table of matrices.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from ...core.finite import finite_range
from ...core.lazy_matrix import LazyMatrix
from ...core.lenses import param_count
from ...core.mask_kinds import MASK_KINDS
from ...core.matrices import INPUTS, MATRICES, PROJECTION_INPUTS, PROJECTIONS, axis_labels
from ...core.scenario import Scenario
from ..state import State
from .weighting import TITLES, weighted_rows

if TYPE_CHECKING:
    from attn_tui.core.attention import Trace

# name -> one sentence, in the lesson's words, for the help screen.
PANE_HELP = {
    "X": "X (T×d_model): row t is the embedding of token t; in the lesson's scenario, one-hot features "
    "[noun, verb, adjective, pronoun, spare, spare] so the arithmetic can be followed by eye.",
    "Y": "Y (T'×d_model): cross-attention — keys and values come from this second sequence while queries "
    "still come from X.",
    "W_Q": "W_Q (d_model×d_k): what each kind of token LOOKS FOR (a pronoun looks for the noun it stands for).",
    "W_K": "W_K (d_model×d_k): what each kind of token ADVERTISES, on the same dims as the queries.",
    "W_V": "W_V (d_model×d_v): what a token HANDS OVER when selected. The params in its title count W_Q, W_K "
    "and W_V together, d_model(2d_k + d_v) — not W_V alone, which has d_model·d_v.",
    "Q": "Q = X W_Q (T×d_k): one query per token — what it's looking for.",
    "K": "K = X W_K (T×d_k; K = Y W_K, T'×d_k, in cross-attention): one key per token — what it advertises. "
    "Queries and keys are different maps because what a token asks for and what it advertises are "
    "different things.",
    "V": "V = X W_V (T×d_v; V = Y W_V, T'×d_v, in cross-attention): one value per token — what it contributes "
    "if selected (when Q and K are given directly without V, V is the identity, so O = A).",
    "S": "S = c·QKᵀ/√d_k (T×T'): entry (t, i) is c times the dot product q_t·k_i — a raw similarity between "
    "query t and key i — divided by √d_k, which (at c = 1) keeps the input to softmax at roughly unit variance "
    "regardless of d_k when q and k have independent zero-mean unit-variance components; c is the knob, u "
    "removes √d_k (S = c·QKᵀ).",
    "M": "M (T×T'): the causal mask, 0 where i ≤ t and a large finite negative number (−10⁹) where i > t, "
    "so token t cannot see the future (−∞ works too: every causal row keeps its diagonal). Blocked cells "
    "are grey; in float16 −10⁹ itself overflows to −∞.",
    "A": "A = softmax(S + M) (T×T'): softmax on each row turns the scores into a probability distribution "
    "over the keys query t may see; the masked entries become exactly 0 (struck through), so with the "
    "causal mask A is lower-triangular.",
    "O": "O = A V (T×d_v): row t is the attention-weighted mix of the value rows — token t retrieves what "
    "the keys it matched hand over. Columns are the value features.",
    "H": "Entropy table: H(A_t) = −Σ_i A_t,i log₂ A_t,i in bits measures how spread row t is, against the "
    "ceiling log₂ of the keys the row sees: log₂t under the causal mask, log₂T′ with no mask or with "
    "cross-attention (T′ keys), fewer with padding or a window, and none (—) for a row that sees no key; "
    "2^H is the effective number of tokens attended.",
}


@dataclass(frozen=True)
class GridView:
    """What a grid pane shows: the matrix, its labels and palette kind, then the rest by name."""

    values: np.ndarray
    rows: tuple
    cols: tuple
    kind: str  # "seq" | "div" | "mask" | "plain"
    _: KW_ONLY
    title: str
    blocked: np.ndarray | None = None
    selected: bool = False  # highlight the selected query row
    short: str = ""  # the title when the pane is too narrow for ``title``, e.g. "S (5×5)"
    # The grid's protocol (widgets/matrix_grid.py): lo, hi, the finite min and max over the WHOLE
    # matrix (NaN when none is finite), set the cell width and the colour scale; version: equal
    # versions mean equal values and blocked (None: an ndarray the grid compares itself).
    lo: float = float("nan")
    hi: float = float("nan")
    version: object = None
    by_sign: bool = False  # the cell width from the values' sign, not their size (S: c scales it)

    def show_args(self, row: int) -> tuple[tuple, dict]:
        """The arguments of MatrixGrid.show for this view with query row ``row`` selected."""
        sel = row if self.selected else None
        kw = dict(kind=self.kind, blocked=self.blocked, selected=sel, lo=self.lo, hi=self.hi, version=self.version)
        kw.update(by_sign=self.by_sign)
        return (self.values, self.rows, self.cols), kw


def grid_view(name: str, state: State) -> GridView | None:
    s, tr = state.scenario, state.trace
    if name in PROJECTION_INPUTS and getattr(s, name) is None:
        return None
    rows, cols = axis_labels(s, name)
    values, title, short, blocked, kind = _PARTS[name](s, tr, state)
    if name == "H" and state.compared is not None:
        cols = PINNED_ENTROPY_COLUMNS
    elif name == "H" and (not MASK_KINDS[s.mask].causal or s.padding):
        cols = ("log₂n", *cols[1:])  # the ceiling is log₂ of the n keys row t sees, not of t
    shape = f"({values.shape[0]}×{values.shape[1]})"
    lo, hi = large_range(name, values, state) if state.large else finite_range(values)
    if name == "H" and not state.large and state.compared is None:
        lo, hi = entropy_range(lo, hi, state)
    pin = state.compared  # the pin itself, when it can be compared
    pinned = state.large and pin is not None and pin.trace.serial  # a full Trace has no serial
    version = (tr.serial, name, pinned, name == "A" and state.weighting_shown) if state.large else None
    return GridView(
        values,
        rows,
        cols,
        kind,
        title=title.format(shape=shape),
        blocked=blocked,
        selected=MATRICES[name].row_linked,
        short=short.format(shape=shape),
        lo=lo,
        hi=hi,
        version=version,
        by_sign=name == "S",
    )


C_FREE = frozenset((*INPUTS, "M"))  # the views c does not change: the inputs, Q, K, V and the mask
_NOT_C = tuple(f.name for f in fields(Scenario) if f.name != "c")


def unchanged_views(old: State | None, new: State) -> frozenset:
    """The grids whose view ``new`` leaves as ``old`` had it: when only c changed (`+`, `-`, `0`),
    the inputs, Q, K, V and M (C_FREE); none when anything else changed (a field of the scenario
    that is not the same object, the row, the pin) or either state is large (a grid keeps the lazy
    matrix it reads its rows from). tests/tui/test_repaint_unchanged.py"""
    if old is None or old.row != new.row or old.pin is not new.pin or old.large or new.large:
        return frozenset()
    a, b = old.scenario, new.scenario
    return frozenset() if any(getattr(a, f) is not getattr(b, f) for f in _NOT_C) else C_FREE


def large_range(name: str, values, state: State) -> tuple[float, float]:
    """(lo, hi) for a large state's grid without reading the matrix: the inputs (T x d) are read
    whole; S's colour range from a sample of its rows, M, A, O bounded (LazyTrace.bounds); ΔA within [-1, 1]; the
    entropy table within [0, log₂ of the most keys a row sees] (2^H up to that many keys)."""
    if isinstance(values, np.ndarray) and values.ndim == 2 and values.shape[1] <= 512:
        from ...core.stream import facts  # a large scenario's: the streaming core is loaded with its trace

        return facts(values)[:2]  # an input (T x d), scanned once per array (core.stream.facts)
    if isinstance(values, np.ndarray):
        return finite_range(values)
    if name == "A" and state.compared is not None:
        return -1.0, 1.0
    if name == "H":
        return entropy_bounds(state)
    return state.trace.bounds(name)


def entropy_bounds(state: State) -> tuple[float, float]:
    """The entropy table's bounds: [0, 2^(most bits a row can carry)] (log₂n, H <= log₂n, 2^H <= n
    keys); pinned, H and ΔH within ±(most bits)."""
    top = float(np.nanmax(state.ceiling, initial=0.0))
    return (-top, top) if state.compared is not None else (0.0, max(1.0, 2.0**top))


def entropy_range(lo: float, hi: float, state: State) -> tuple[float, float]:
    """The entropy table's (lo, hi) widened to its bounds: its cells keep one width whatever c does
    (`+` that takes 2^H past 10 would widen the pane and lay the screen out again). Its numbers are
    not coloured."""
    b_lo, b_hi = entropy_bounds(state)
    if not np.isfinite(lo):
        return b_lo, b_hi
    return min(lo, b_lo), max(hi, b_hi)


def _no_ceiling(state: State, pin, r0: int, r1: int, c0: int, c1: int):
    none = np.zeros((r1 - r0, 3), dtype=bool)
    if pin is None:
        none[:, 0] = np.isnan(state.ceiling[r0:r1])
    return none[:, c0:c1]


PINNED_ENTROPY_COLUMNS = ("H pin", "H", "ΔH")
_INPUT_TITLES = {"X": "X tokens×features {shape}", "Y": "Y key tokens×features {shape}"}


def _inputs(name: str):
    def part(s: Scenario, tr: Trace, state: State):
        a = getattr(s, name)
        title = _INPUT_TITLES.get(name, f"{name} {{shape}}")
        if name == "W_V":
            title += f" · W_Q+W_K+W_V {param_count(s.d_model, s.d_k, s.d_v)} params"
        return a, title, f"{name} {{shape}}", None, "div"

    return part


def _projected(name: str):
    def part(s: Scenario, tr: Trace, state: State):
        src = "X" if name == "Q" or not s.cross else "Y"
        if s.projected:
            title = f"{name} = {src} W_{name} {{shape}}"
        else:
            title = "V = I {shape}" if name == "V" and s.V is None else f"{name} {{shape}}"
        return getattr(tr, name), title, f"{name} {{shape}}", None, "div"

    return part


def _scores(s: Scenario, tr: Trace, state: State):
    t = "S = c·QKᵀ/√d_k" if s.scaled else "S = c·QKᵀ (unscaled)"
    short = "S {shape}" if s.scaled else "S unscaled {shape}"
    return tr.S, t + " {shape}", short, tr.blocked, "div"


def _weights(s: Scenario, tr: Trace, state: State):
    pin = state.compared
    if pin is None:
        title, short = TITLES[state.weighting_shown]
        if state.key_scale is None:
            return tr.A, title, short, tr.blocked, "seq"
        A: LazyMatrix | np.ndarray
        if state.large:  # the tiles read are weighted where they are read
            A = LazyMatrix(
                tr.A.shape, np.float64, lambda r0, r1, c0, c1: weighted_rows(state, tr.A[r0:r1, c0:c1], c0, c1)
            )
        else:
            A = weighted_rows(state, tr.A)
        return A, title, short, tr.blocked, "seq"
    if state.large:
        delta = LazyMatrix(tr.A.shape, np.float64, lambda r0, r1, c0, c1: _diff(tr.A, pin.trace.A, r0, r1, c0, c1))
    else:
        with np.errstate(invalid="ignore"):
            delta = tr.A.astype(np.float64) - pin.trace.A.astype(np.float64)
    return delta, "ΔA = A − A(pinned) {shape}", "ΔA {shape}", tr.blocked, "div"


def _diff(a, b, r0: int, r1: int, c0: int, c1: int):
    with np.errstate(invalid="ignore"):
        return a[r0:r1, c0:c1].astype(np.float64) - b[r0:r1, c0:c1].astype(np.float64)


def _entropy_rows(state: State, r0: int, r1: int, c0: int, c1: int):
    """Rows r0:r1 of the entropy table (columns c0:c1) of a large state: H per row block."""
    H = state.trace.H[r0:r1]
    pin = state.compared
    if pin is not None:
        h0 = pin.trace.H[r0:r1]
        return np.column_stack([h0, H, H - h0])[:, c0:c1]
    return np.column_stack([state.ceiling[r0:r1], H, np.exp2(H)])[:, c0:c1]


def _entropy(s: Scenario, tr: Trace, state: State):
    pin = state.compared
    if state.large:  # computed per row block where the table is read
        lazy = LazyMatrix((s.T, 3), np.float64, lambda r0, r1, c0, c1: _entropy_rows(state, r0, r1, c0, c1))
        lazy_none = LazyMatrix((s.T, 3), bool, lambda r0, r1, c0, c1: _no_ceiling(state, pin, r0, r1, c0, c1))
        title = "H(A_t) pinned, now, ΔH bits" if pin is not None else "entropy H(A_t), bits"
        return lazy, title, "ΔH(A_t) bits" if pin is not None else "H(A_t) bits", lazy_none, "div" if pin else "plain"
    if pin is not None:  # H then and now, and the change: ΔH > 0 is a flatter row
        h0 = pin.trace.H.astype(np.float64)
        vals = np.column_stack([h0, tr.H, tr.H - h0])
        return vals, "H(A_t) pinned, now, ΔH bits", "ΔH(A_t) bits", np.zeros(vals.shape, dtype=bool), "div"
    ceiling = state.ceiling  # log₂(visible keys); NaN (drawn "—") when none is visible
    vals = np.column_stack([ceiling, tr.H, tr.eff])
    none = np.zeros(vals.shape, dtype=bool)
    none[:, 0] = np.isnan(ceiling)
    return vals, "entropy H(A_t), bits", "H(A_t) bits", none, "plain"


_PARTS = {
    **{n: _inputs(n) for n in PROJECTION_INPUTS},
    **{n: _projected(n) for n in PROJECTIONS},
    "S": _scores,
    "M": lambda s, tr, st: (tr.M, f"M {s.mask}, fill {s.fill} {{shape}}", f"M {s.mask} {{shape}}", tr.blocked, "mask"),
    "A": lambda s, tr, st: _weights(s, tr, st),
    "O": lambda s, tr, st: (tr.O, "O = A V {shape}", "O {shape}", None, "div"),
    "H": _entropy,
}

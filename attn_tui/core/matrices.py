"""The one table of the explorer's matrices: name, axes (and so shape and labels),
whether the learner types it in, whether its rows are the query tokens, and how it
is computed. Everything else (the editor, the grids, the inspector, the cursor's
clamping, the "computed, not edited" hints) derives from MATRICES.

Axes name the labels of a scenario ``s`` that index a matrix's rows or columns:
"tokens" (T query tokens), "keys" (T' key tokens), "features" (d_model),
"value_features" (d_v), "d" / "q" / "k" (d_k columns named d1.., q1.., k1..),
"v" (d_v columns v1..) and "entropy" (the entropy table's log₂t, H, 2^H).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.scenario import Scenario


@dataclass(frozen=True)
class Matrix:
    name: str
    rows: str  # axis of the rows (see the module docstring)
    cols: str  # axis of the columns
    typed: str  # when the learner edits it: "always" (an input), "direct" (only in a Q/K scenario), "never"
    row_linked: bool  # its rows are the query tokens: the cell cursor's row is the selected query row
    formula: str  # how it is computed ("" for an input); {src} is X or Y, {qk} what the scores come from


MATRICES: dict[str, Matrix] = {
    m.name: m
    for m in (
        # The inputs in file order (a scenario file's keys, the Scenario's fields): INPUTS below.
        Matrix("X", "tokens", "features", "always", True, ""),
        # A product carries its right factor's column names: Q = X·W_Q and K = X·W_K share W_Q's and
        # W_K's d1..d_k (q·k pairs dimension j with dimension j), V = X·W_V has W_V's value features.
        Matrix("W_Q", "features", "d", "always", False, ""),
        Matrix("W_K", "features", "d", "always", False, ""),
        Matrix("W_V", "features", "value_features", "always", False, ""),
        Matrix("Y", "keys", "features", "always", False, ""),
        Matrix("Q", "tokens", "d", "direct", True, "Q = X·W_Q: edit X or W_Q"),
        Matrix("K", "keys", "d", "direct", False, "K = {src}·W_K: edit {src} or W_K"),
        Matrix("V", "keys", "value_features", "direct", False, "V = {src}·W_V: edit {src} or W_V"),
        Matrix(
            "S", "tokens", "keys", "never", True, "S = c·Q·Kᵀ/√d_k: edit {qk}, or change c (+/-, 0) or the scaling (u)"
        ),
        Matrix(
            "M",
            "tokens",
            "keys",
            "never",
            True,
            "M is the mask: m toggles causal, w picks the kind, b pads keys, f sets the fill",
        ),
        Matrix("S_masked", "tokens", "keys", "never", True, "S + M: edit the scores' inputs or the mask (m, w, b, f)"),
        Matrix(
            "A", "tokens", "keys", "never", True, "A = softmax(S + M) by rows: edit {qk}, c (+/-) or the mask (m, w, b)"
        ),
        Matrix("O", "tokens", "value_features", "never", True, "O = A·V: edit {v} or what shapes A ({qk}, c, mask)"),
        Matrix("H", "tokens", "entropy", "never", True, "H(A_t) = −Σ_i A_t,i log₂ A_t,i: edit what shapes A"),
    )
}

#: The matrices a Scenario stores (its inputs), in file order: X, W_Q, W_K, W_V, Y, Q, K, V.
INPUTS = tuple(n for n, m in MATRICES.items() if m.typed != "never")
#: The inputs of a projected scenario, always typed in: X, W_Q, W_K, W_V (and Y for cross-attention).
PROJECTION_INPUTS = tuple(n for n, m in MATRICES.items() if m.typed == "always")
#: Q, K, V: typed in a Q/K scenario, computed from X (or Y) in a projected one.
PROJECTIONS = tuple(n for n, m in MATRICES.items() if m.typed == "direct")
#: The inputs with one row per token (query or key): their row count may pass the matrix size cap.
TOKEN_ROWS = tuple(n for n in INPUTS if MATRICES[n].rows in ("tokens", "keys"))
#: Names whose rows are the query tokens.
ROW_LINKED = frozenset(n for n, m in MATRICES.items() if m.row_linked)
ENTROPY_COLUMNS = ("log₂t", "H", "2^H")
#: The label lists a scenario file holds beside its inputs (Scenario's fields of the same names).
LABELS = ("tokens", "features", "key_tokens")


def labels(s: Scenario, axis: str) -> tuple[Any, ...]:
    """The labels along ``axis`` of scenario ``s`` (see the module docstring)."""
    if axis in ("tokens", "keys", "features", "value_features"):
        return tuple(s.token_labels if axis == "tokens" else s.key_labels if axis == "keys" else getattr(s, axis))
    if axis == "entropy":
        return ENTROPY_COLUMNS
    n = s.d_v if axis == "v" else s.d_k
    return tuple(f"{axis}{j + 1}" for j in range(n))


def axis_labels(s: Scenario, name: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(row labels, column labels) of matrix ``name`` in scenario ``s``."""
    m = MATRICES[name]
    return labels(s, m.rows), labels(s, m.cols)


def shape(s: Scenario, name: str) -> tuple[int, int] | None:
    """(rows, cols) of matrix ``name`` in scenario ``s``; None when ``s`` has no such matrix
    (no X or W in a Q/K scenario, no Y without cross-attention, no typed Q/K/V when projected)."""
    m = MATRICES.get(name)
    if m is None:
        return None
    if m.typed == "always" and getattr(s, name) is None:
        return None
    rows, cols = axis_labels(s, name)
    return len(rows), len(cols)


def how_computed(s: Scenario, name: str) -> str:
    """What to edit instead of computed matrix ``name``: the formula and its inputs."""
    m = MATRICES.get(name)
    src = "Y" if s.cross else "X"
    qk = ("X, W_Q, W_K" + (", Y" if s.cross else "")) if s.projected else "Q, K"
    formula = m.formula if m is not None and m.formula else "edit the inputs instead"
    return formula.format(src=src, qk=qk, v="W_V" if s.projected else "V")


def computed_hint(s: Scenario, name: str) -> str:
    """The refusal for `enter` on computed matrix ``name``: what it is and what to edit instead."""
    return f"{name} is computed, not edited. {how_computed(s, name)}"

"""How one cell of the pipeline was computed, with its numbers: the cell inspector's text.

    S[t,i] = c·q_t·k_i/√d_k;  A[t,i] = exp((S+M)[t,i] − max) / Σ_j exp((S+M)[t,j] − max);
    O[t,:] = Σ_i A[t,i] v_i;  Q = X W_Q (and K, V);  H(A_t) = −Σ_i A[t,i] log₂ A[t,i].

``derivation(s, trace, name, r, c)`` is the one place these lines are written; it reads
the trace (Q, K, V, S, M, S + M, A, O, H, blocked) and recomputes only the sums it shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .attention import blocked_cells
from .diagnose import NO_CEILING, ceiling_bits, dtype_max, nan_cause
from .mask_kinds import MASK_KINDS
from .matrices import PROJECTION_INPUTS, PROJECTIONS
from .numfmt import fit_number

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.attention import Trace
    from attn_tui.core.scenario import Scenario

MAX_TERMS = 6


def n(x: Any) -> str:
    return fit_number(float(x), 10)


def vec(a: np.ndarray) -> str:
    return "[" + " ".join(n(x) for x in a) + "]"


def _sum(terms: list[tuple[float, float]]) -> str:
    """ "a×b + c×d + …" over the terms whose product is not 0 (at most MAX_TERMS)."""
    nz = [(a, b) for a, b in terms if a * b != 0 or np.isnan(a * b)]
    shown = " + ".join(f"{n(a)}×{n(b)}" for a, b in nz[:MAX_TERMS])
    if len(nz) > MAX_TERMS:
        shown += f" + … ({len(nz) - MAX_TERMS} more)"
    return shown or "0 (every term is 0)"


def block_reason(s: Scenario, r: int, c: int) -> str:
    """Why query r may not see key c (0-based), by the core's own mask rule (blocked_cells)."""
    reasons = []
    if c + 1 in s.padding:
        reasons.append(f"key {c + 1} is padding")
    kind = MASK_KINDS[s.mask]
    future = kind.future and c > r  # every key after the query is hidden (causal, window)
    if future:
        reasons.append("a future key (causal)")
    if kind.windowed and not future and blocked_cells(s.mask, r + 1, c + 1, window=s.window)[r, c]:
        reasons.append(f"outside the window of the last {s.window} keys")
    return ", ".join(reasons) or "masked"


def _input(s: Scenario, tr: Trace, name: str, r: int, c: int) -> list[str]:
    a = getattr(tr, name) if name in PROJECTIONS else getattr(s, name)
    typed = name != "V" or s.V is not None
    return [
        f"{name}[{r + 1},{c + 1}] = {n(a[r, c])}",
        "an input, given, not computed (enter edits it)" if typed else "V is the identity: Q and K came without V",
    ]


def _projection(s: Scenario, tr: Trace, name: str, r: int, c: int) -> list[str]:
    W = getattr(s, f"W_{name}")
    src, sname = (s.X, "X") if name == "Q" or not s.cross else (s.Y, "Y")
    assert src is not None  # a projected scenario holds X (and Y when cross)
    return [
        f"{name}[{r + 1},{c + 1}] = Σ_f {sname}[{r + 1},f]·W_{name}[f,{c + 1}]",
        f"= {_sum(list(zip(src[r], W[:, c])))}",
        f"= {n(getattr(tr, name)[r, c])}",
    ]


def _score(s: Scenario, tr: Trace, r: int, c: int, head: str) -> list[str]:
    q, k = tr.Q[r], tr.K[c]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is explained below
        dot = float(np.dot(q.astype(np.float64), k.astype(np.float64)))
    form = f"c·q·k/√d_k = {n(s.c)}×{n(dot)}/√{s.d_k}" if s.scaled else f"c·q·k = {n(s.c)}×{n(dot)}"
    out = [
        f"S[{r + 1},{c + 1}] ({head})",
        f"q = {vec(q)}",
        f"k = {vec(k)}",
        f"q·k = {n(dot)};  {form} = {n(tr.S[r, c])}",
    ]
    if not np.isfinite(tr.S[r, c]):
        out.append(
            f"overflow: beyond the largest {tr.S.dtype.name} ({dtype_max(tr.S.dtype):g}), "
            f"so S = {n(tr.S[r, c])}; not a mask"
        )
    if tr.blocked[r, c]:
        out.append(f"blocked: S+M = {n(tr.S_masked[r, c])}, so A = 0")
    return out


def _mask(s: Scenario, tr: Trace, r: int, c: int, head: str) -> list[str]:
    why = f"blocked: {block_reason(s, r, c)}" if tr.blocked[r, c] else "open: query may see this key"
    if tr.blocked[r, c] and s.fill == "-1e9" and np.isinf(tr.M[r, c]):
        why += f" (the -1e9 fill is -inf in {s.dtype})"
    return [f"M[{r + 1},{c + 1}] ({head}) = {n(tr.M[r, c])}", why, f"S + M = {n(tr.S_masked[r, c])}"]


def small(x: Any) -> str:
    """A weight or kernel value with 3 significant digits below 0.1 (0.00154, not 0.002), so the
    quotient written after it can be checked by hand; else as :func:`n`."""
    x = float(x)
    if not 0 < abs(x) < 0.1:
        return n(x)
    m, _, e = f"{x:.3g}".partition("e")
    return f"{m}e{int(e)}" if e else m  # "2.58e-5", as the other numbers write it (not "2.58e-05")


def _weight(tr: Trace, r: int, c: int, head: str) -> list[str]:
    x = tr.S_masked[r].astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        mx = np.max(x)
        e = np.exp(x - mx)
    huge = np.isfinite(mx) and abs(mx) >= 1e6  # −1e9 ± a score: "-1e9 − -1e9" would hide the difference
    arg = f"(S+M) − max = {n(x[c] - mx)}" if huge else f"{n(x[c])} − {n(mx)}"
    return [
        f"A[{r + 1},{c + 1}] ({head})",
        "= exp((S+M)[t,i] − max_j (S+M)[t,j]) / Σ_j exp((S+M)[t,j] − max)",
        f"= exp({arg}) / {n(e.sum())}",
        f"= {small(e[c])} / {n(e.sum())} = {small(tr.A[r, c])}",
        _weight_note(tr, r, c),
    ]


def _weight_note(tr: Trace, r: int, c: int) -> str:
    if np.isnan(tr.A[r, c]):
        return _nan_line(tr, r)
    if not tr.blocked[r, c]:
        return ""
    if tr.A[r, c] == 0:
        return "masked: exp(−huge) = 0"
    if np.all(tr.blocked[r]):
        return "masked, yet not 0: every key of this row is masked, so (S+M) − max is small (a −∞ fill gives NaN)"
    return "masked, yet not 0: the fill does not outweigh these scores"


def _output(s: Scenario, tr: Trace, r: int, c: int) -> list[str]:
    terms = list(zip(tr.A[r].astype(np.float64), tr.V[:, c].astype(np.float64)))
    return [
        f"O[{r + 1},{c + 1}] (row {s.token_labels[r]}, {s.value_features[c]})",
        "= Σ_i A[t,i]·V[i,j]",
        f"= {_sum(terms)}",
        f"= {n(tr.O[r, c])}",
    ]


def _entropy_terms(nz: np.ndarray) -> str:
    """ "−p·log₂p −q·log₂q …" over the nonzero weights; past MAX_TERMS, the largest terms (in key
    order) and how many smaller ones are left out, so the shown terms come closest to H."""
    if len(nz) <= MAX_TERMS:
        shown = nz
    else:
        with np.errstate(all="ignore"):
            contrib = np.nan_to_num(-nz * np.log2(nz), nan=np.inf)
        shown = nz[np.sort(np.argsort(-contrib, kind="stable")[:MAX_TERMS])]
    text = " ".join(f"−{n(x)}·log₂{n(x)}" for x in shown)
    if len(nz) > MAX_TERMS:
        text += f" − … ({len(nz) - MAX_TERMS} smaller terms)"
    return text


def _entropy(s: Scenario, tr: Trace, r: int) -> list[str]:
    p = tr.A[r].astype(np.float64)
    terms = _entropy_terms(p[p > 0])
    top = ceiling_bits(tr.blocked[r : r + 1])[0]
    cap = (
        f"ceiling log₂{int((~tr.blocked[r]).sum())} = {n(top)} bits (visible keys)"
        if np.isfinite(top)
        else f"ceiling {NO_CEILING}: no visible key"
        + ("" if np.isnan(tr.H[r]) else " (the finite fill spreads the row over masked keys)")
    )
    return [
        f"row {s.token_labels[r]}: H(A_t) = −Σ_i A[t,i] log₂ A[t,i]",
        f"= {terms}" if terms else "",
        f"= {n(tr.H[r])} bits;  2^H = {n(tr.eff[r])} tokens",
        cap,
    ]


def derivation(s: Scenario, tr: Trace, name: str, r: int, c: int) -> list[str]:
    """The lines that show how cell (r, c) (0-based) of matrix ``name`` was computed
    (empty lines are left for the caller to drop)."""
    if name in PROJECTION_INPUTS or (name in PROJECTIONS and not s.projected):
        return _input(s, tr, name, r, c)
    if name in PROJECTIONS:
        return _projection(s, tr, name, r, c)
    head = f"row {s.token_labels[r]}, key {s.key_labels[c]}" if name in ("S", "M", "A") else ""  # c is a key there only
    if name == "S":
        return _score(s, tr, r, c, head)
    if name == "M":
        return _mask(s, tr, r, c, head)
    if name == "A":
        return _weight(tr, r, c, head)
    if name == "O":
        return _output(s, tr, r, c)
    if name == "H":
        return _entropy(s, tr, r)
    return [f"{name}[{r + 1},{c + 1}]"]


def _nan_line(tr: Trace, r: int) -> str:
    """Why A's row r is NaN: its true cause (core.diagnose), not always the mask."""
    cause = nan_cause(tr, r)
    if cause.kind == "masked":
        return "NaN: every key is masked with −∞, and −∞ − (−∞) = NaN"
    return "NaN: " + cause.short + ("; nothing is masked" if not tr.blocked[r].any() else "")

"""What one head does, measured: the readings of issue 28, from its attention weights A.

Rows are query positions t, columns key positions i, both counted from 1 as in the lesson.
Each score is a mean over the query rows where it is defined:

- mean_entropy_bits: mean over rows of H(A_t) = -Σ_i A_{t,i} log₂ A_{t,i} (NaN rows left out);
- mean_ceiling_bits: mean over the same rows of log₂(keys row t sees), the uniform row's entropy
  (log₂ t under a causal mask): "trained heads typically sit far below log₂ t";
- prev_token: mean A[t, t-1] over t = 2..T (a previous-token head puts its weight there);
- first_token: mean A[t, 1] over t = 2..T (row 1 under a causal mask is 1 whatever the head);
- self: mean A[t, t] over t = 2..T;
- induction: mean A[t, j+1] over the rows t whose token occurred before, j its latest earlier
  position: the weight on the token that followed its previous occurrence; None (null) when no
  token repeats.

prev_token, self and induction need the keys to be the queries' own positions (T' = T); with
other keys they are None. Rows are computed in blocks (ROWS at a time), so a head of 16,384 tokens
never holds its T x T' matrix.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..info import row_entropies_bits

ROWS = 256  # query rows per block: ROWS x T' float64 is 32 MiB at T' = 16384
FIELDS = ("mean_entropy_bits", "mean_ceiling_bits", "prev_token", "first_token", "self", "induction")


@dataclass(frozen=True)
class Readings:
    """One head's measured reading (module doc); layer and head counted from 0."""

    layer: int
    head: int
    mean_entropy_bits: float
    mean_ceiling_bits: float
    prev_token: float | None
    first_token: float
    self: float | None
    induction: float | None

    def as_dict(self) -> dict:
        return asdict(self)


def previous_occurrence(ids) -> np.ndarray:
    """(T,) for each position t (0-based) the latest j < t with ids[j] == ids[t], else -1."""
    last, prev = {}, np.full(len(ids), -1)
    for t, tok in enumerate(ids):
        prev[t] = last.get(tok, -1)
        last[tok] = t
    return prev


def _mean(total: float, count: int):
    return total / count if count else None


def head_readings(weights_block, T: int, T_k: int, ids=None, layer: int = 0, head: int = 0) -> Readings:
    """The readings of one head whose weights come in row blocks.

    weights_block(r0, r1) -> (A rows r0..r1-1 (r1 - r0, T'), seen (r1 - r0, T') bool: the keys
    each row may see). ids (T,): the query tokens (any hashables), for the induction score."""
    aligned = T_k == T
    prev = previous_occurrence(ids) if ids is not None and aligned else None
    s = dict.fromkeys(("H", "ceil", "prev", "first", "self", "ind"), 0.0)
    n = dict.fromkeys(("rows", "later", "ind"), 0)
    for r0 in range(0, T, ROWS):
        r1 = min(T, r0 + ROWS)
        A, seen = weights_block(r0, r1)  # (r1 - r0, T')
        H = row_entropies_bits(A)
        ok = ~np.isnan(H)  # a fully masked row is NaN: left out of every mean
        s["H"] += float(H[ok].sum())
        s["ceil"] += float(np.log2(np.maximum(seen[ok].sum(axis=1), 1)).sum())
        n["rows"] += int(ok.sum())
        t = np.arange(r0, r1)
        rows = np.flatnonzero(ok & (t >= 1))  # local rows of t = 2..T (1-based)
        n["later"] += len(rows)
        s["first"] += float(A[rows, 0].sum())
        if aligned:
            s["prev"] += float(A[rows, t[rows] - 1].sum())
            s["self"] += float(A[rows, t[rows]].sum())
        if prev is not None:
            rep = np.flatnonzero(ok & (prev[r0:r1] >= 0))
            s["ind"] += float(A[rep, prev[r0:r1][rep] + 1].sum())
            n["ind"] += len(rep)
    later = n["later"]
    return Readings(
        layer=layer,
        head=head,
        mean_entropy_bits=s["H"] / n["rows"] if n["rows"] else float("nan"),
        mean_ceiling_bits=s["ceil"] / n["rows"] if n["rows"] else float("nan"),
        prev_token=_mean(s["prev"], later) if aligned else None,
        first_token=_mean(s["first"], later),
        self=_mean(s["self"], later) if aligned else None,
        induction=_mean(s["ind"], n["ind"]),
    )


def sort_readings(readings, field: str, descending: bool = True) -> list:
    """``readings`` ordered by ``field`` (one of FIELDS), the heads where it is None (null) last,
    ties in (layer, head) order: the heads table sorted by any column."""
    if field not in FIELDS:
        raise ValueError(f"sort: unknown column {field!r}; use one of {', '.join(FIELDS)}")
    known = sorted((r for r in readings if getattr(r, field) is not None), key=lambda r: (r.layer, r.head))
    known.sort(key=lambda r: getattr(r, field), reverse=descending)  # stable: ties keep (layer, head)
    return known + [r for r in readings if getattr(r, field) is None]

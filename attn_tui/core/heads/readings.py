"""What one head does, measured: the readings of issue 28, from its attention weights A.

Rows are query positions t, columns key positions i, both counted from 1 as in the lesson.
Each score is a mean over the query rows where it is defined:

- mean_entropy_bits: mean over rows of H(A_t) = -Σ_i A_{t,i} log₂ A_{t,i} (NaN rows left out);
- mean_ceiling_bits: mean over the same rows of log₂(keys row t sees), the uniform row's entropy
  (log₂ t under a causal mask): "trained heads typically sit far below log₂ t";
- prev_token: mean A[t, t-1] over t = 2..T (a previous-token head puts its weight there);
- first_token: mean A[t, 1] over t = 2..T (row 1 under a causal mask is 1 whatever the head);
- self_token: mean A[t, t] over t = 2..T;
- induction: over the rows t whose token occurred before, the mean of Σ_j A[t, j+1] over every
  earlier position j < t holding the same token: the weight on the tokens that followed its earlier
  occurrences (our reading of the prefix matching Olsson et al. 2022 describe in words; a head that
  copies after every earlier copy scores 1 however many there are); None (null) when no token repeats;
- duplicate_token: over the same rows, the mean of Σ_j A[t, j] over those earlier j: the weight on
  the token's own earlier copies.

TransformerLens's head detector scores the same pattern averaged over every row, rows with no earlier
copy included (they count 0): ours is the mean over the rows where the pattern can exist, so it
reads the same on a sequence repeated once or four times.

prev_token, self, induction and duplicate_token need the keys to be the queries' own positions (T' = T); with
other keys they are None. Rows are computed in blocks (ROWS at a time), so a head of 16,384 tokens
never holds its T x T' matrix.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from ..info import row_entropies_bits

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

ROWS = 256  # query rows per block: ROWS x T' float64 is 32 MiB at T' = 16384
# A head is named for a score (previous-token, induction, duplicate) only when it puts at least this
# share of its weight there: "most of the weight". A random-weight head reads ~1/t on every pattern,
# and the highest of many such readings is a number, not a kind of head.
NAMES_A_HEAD = 0.5


@dataclass(frozen=True)
class Reading:
    """One reading, as every reader names it: ``field``, Readings' attribute and the JSON's key; ``text``,
    its column in `attn-tui heads`' text; ``tile``, its label on a heads-screen tile; ``words``, what the
    heads screen's header calls it when sorted by it."""

    field: str
    text: str
    tile: str
    words: str


# THE list of readings, in the order the text's columns, the JSON's keys and the tiles' lines follow.
READINGS = (
    Reading("mean_entropy_bits", "H mean", "H", "mean row entropy H"),
    Reading("mean_ceiling_bits", "log2 ceil", "log₂t", "its ceiling log₂ t"),
    Reading("prev_token", "prev", "prev", "previous-token score"),
    Reading("first_token", "first", "first", "first-token score"),
    Reading("self_token", "self", "self", "self score"),
    Reading("induction", "induction", "ind", "induction score"),
    Reading("duplicate_token", "duplicate", "dup", "duplicate-token score"),
)
FIELDS = tuple(r.field for r in READINGS)


@dataclass(frozen=True)
class Readings:
    """One head's measured reading (module doc); layer and head counted from 0."""

    layer: int
    head: int
    mean_entropy_bits: float
    mean_ceiling_bits: float
    prev_token: float | None
    first_token: float
    self_token: float | None
    induction: float | None
    duplicate_token: float | None

    def as_dict(self) -> dict[Any, Any]:
        return asdict(self)


assert tuple(f.name for f in fields(Readings))[2:] == FIELDS, "Readings' fields follow READINGS"


def previous_occurrence(ids: Sequence[Any] | np.ndarray) -> np.ndarray:
    """(T,) for each position t (0-based) the latest j < t with ids[j] == ids[t], else -1."""
    last: dict[Any, int] = {}  # token -> its latest position so far
    prev = np.full(len(ids), -1)
    for t, tok in enumerate(ids):
        prev[t] = last.get(tok, -1)
        last[tok] = t
    return prev


def earlier_same(codes: Any, r0: int, r1: int) -> np.ndarray:
    """(r1 - r0, T) True at [t - r0, j] when j < t and codes[j] == codes[t]: row t's earlier copies."""
    T = len(codes)
    t = np.arange(r0, r1)[:, None]
    return (codes[None, :] == codes[r0:r1, None]) & (np.arange(T)[None, :] < t)


def token_codes(ids: Sequence[Any] | np.ndarray) -> np.ndarray:
    """(T,) int64: equal ids, equal codes (ids may be any hashables)."""
    index: dict[Any, Any] = {}
    return np.array([index.setdefault(tok, len(index)) for tok in ids], np.int64)


def _mean(total: float, count: int) -> Any:
    return total / count if count else None


def head_readings(
    weights_block: Any, T: int, T_k: int, ids: Sequence[Any] | np.ndarray | None = None, layer: int = 0, head: int = 0
) -> Readings:
    """The readings of one head whose weights come in row blocks.

    weights_block(r0, r1) -> (A rows r0..r1-1 (r1 - r0, T'), seen (r1 - r0, T') bool: the keys
    each row may see). ids (T,): the query tokens (any hashables), for the induction score."""
    aligned = T_k == T
    codes = token_codes(ids) if ids is not None and aligned else None
    tot = _Totals()
    for r0 in range(0, T, ROWS):
        r1 = min(T, r0 + ROWS)
        A, seen = weights_block(r0, r1)  # (r1 - r0, T')
        tot.add_block(A, seen, r0, aligned, codes)
    later, rows = tot.later, tot.rows
    return Readings(
        layer=layer,
        head=head,
        mean_entropy_bits=tot.entropy / rows if rows else float("nan"),
        mean_ceiling_bits=tot.ceiling / rows if rows else float("nan"),
        prev_token=_mean(tot.prev, later) if aligned else None,
        first_token=_mean(tot.first, later),
        self_token=_mean(tot.self_weight, later) if aligned else None,
        induction=_mean(tot.induction, tot.repeated),
        duplicate_token=_mean(tot.duplicate, tot.repeated),
    )


@dataclass
class _Totals:
    """The sums head_readings divides at the end, one block of query rows at a time: weights summed
    over the rows where each reading is defined, and how many rows those were."""

    entropy: float = 0.0  # Σ H(A_t) over the rows that are not NaN (``rows`` of them)
    ceiling: float = 0.0  # Σ log₂(keys row t sees) over the same rows
    prev: float = 0.0  # Σ A[t, t-1] over t = 2..T (``later`` rows)
    first: float = 0.0  # Σ A[t, 1] over the same
    self_weight: float = 0.0  # Σ A[t, t] over the same
    induction: float = 0.0  # Σ A[t, j+1] over every earlier copy j, rows whose token occurred before
    duplicate: float = 0.0  # Σ A[t, j] over those copies (``repeated`` rows)
    rows: int = 0
    later: int = 0
    repeated: int = 0

    def add_block(self, A: np.ndarray, seen: Any, r0: int, aligned: bool, codes: Any) -> None:
        """Add query rows r0..r0 + len(A) - 1: A and seen (rows, T')."""
        H = row_entropies_bits(A)
        ok = ~np.isnan(H)  # a fully masked row is NaN: left out of every mean
        self.entropy += float(H[ok].sum())
        self.ceiling += float(np.log2(np.maximum(seen[ok].sum(axis=1), 1)).sum())
        self.rows += int(ok.sum())
        t = np.arange(r0, r0 + len(A))
        rows = np.flatnonzero(ok & (t >= 1))  # local rows of t = 2..T (1-based)
        self.later += len(rows)
        self.first += float(A[rows, 0].sum())
        if aligned:
            self.prev += float(A[rows, t[rows] - 1].sum())
            self.self_weight += float(A[rows, t[rows]].sum())
        if codes is not None:
            same = earlier_same(codes, r0, r0 + len(A))  # (rows, T)
            rep = np.flatnonzero(ok & same.any(axis=1))
            A_rep, same = A[rep], same[rep]
            self.induction += float((A_rep[:, 1:] * same[:, :-1]).sum())  # A[t, j+1] for each earlier copy j
            self.duplicate += float((A_rep * same).sum())
            self.repeated += len(rep)


def sort_readings(readings: Any, field: str, descending: bool = True) -> list[Any]:
    """``readings`` ordered by ``field`` (one of FIELDS), the heads where it is None (null) last,
    ties in (layer, head) order: the heads table sorted by any column."""
    if field not in FIELDS:
        raise ValueError(f"sort: unknown column {field!r}; use one of {', '.join(FIELDS)}")
    known = sorted((r for r in readings if getattr(r, field) is not None), key=lambda r: (r.layer, r.head))
    known.sort(key=lambda r: getattr(r, field), reverse=descending)  # stable: ties keep (layer, head)
    return known + [r for r in readings if getattr(r, field) is None]

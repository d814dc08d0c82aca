"""What the cell inspector shows: how the cell under the cursor was computed (core.derive).

Without a cursor it explains the largest weight of the selected row of A; in a grid whose
rows are the query tokens the row is the selected query row (j/k move it under the cursor).
"""

from __future__ import annotations

import numpy as np

from ...core.derive import derivation
from ...core.matrices import ROW_LINKED
from ..state import State


def inspector_lines(state: State) -> list[str]:
    """The inspector's lines for ``state`` (a stale cursor after a reshape says so)."""
    tr = state.trace
    name, r, c = state.cursor if state.cursor else ("A", state.row, None)
    if name in ROW_LINKED:
        r = state.row
    if c is None:
        c = int(np.argmax(np.nan_to_num(tr.A[r], nan=-1.0)))
    try:
        lines = derivation(state.scenario, tr, name, r, c)
    except (IndexError, KeyError, TypeError, ValueError) as exc:
        lines = [f"(nothing to inspect: {exc})"]
    return [x for x in lines if x]

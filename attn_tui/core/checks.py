"""Input checks shared by the core: every refusal names the matrix and the cell."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any


def check_matrix(a: np.ndarray, name: str) -> Any:
    """Return ``a`` as a 2-D float64 array, or raise ValueError naming the bad cell.

    Refuses: non-numeric entries, ragged or non-2-D input, empty matrices, NaN/inf.
    Cells are named 1-based as (row, column), the way the lesson indexes.
    """
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: not a matrix of numbers ({exc})") from None
    if arr.ndim != 2:
        raise ValueError(f"{name}: must be a 2-D matrix, got {arr.ndim} dimension(s)")
    if arr.size == 0:
        raise ValueError(f"{name}: is empty (shape {arr.shape[0]}x{arr.shape[1]})")
    # One pass: a NaN or inf makes the sum non-finite; only then (or when a sum of finite values
    # overflows) look for the cell to name. A keypress that revalidates T x d inputs stays cheap.
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()
    if not np.isfinite(total):
        bad = np.argwhere(~np.isfinite(arr))
        if len(bad):
            r, c = (int(v) for v in bad[0])
            raise ValueError(f"{name}: row {r + 1}, column {c + 1} is {arr[r, c]}; entries must be finite")
    return arr


def check_same(got: Any, want: Any, name: str, what: str) -> None:
    """Raise ValueError "name: what (got G, expected W)" unless got == want (a size of ``name``)."""
    if got != want:
        raise ValueError(f"{name}: {what} (got {got}, expected {want})")

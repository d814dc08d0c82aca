"""The finite min and max of an array: the one helper behind a grid's colour scale and cell width
(views/grids.py, widgets/palette.py), the State's bounds and a large scenario's input facts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any


def finite_range(values: Any) -> tuple[float, float]:
    """(lo, hi): the finite min and max of ``values`` (any shape, read as float64), (NaN, NaN) when
    no value is finite.

    >>> finite_range([[1.0, float("inf")], [float("nan"), -2.0]])
    (-2.0, 1.0)
    """
    v = np.asarray(values, dtype=np.float64)
    f = v[np.isfinite(v)]
    return (float(f.min()), float(f.max())) if f.size else (float("nan"), float("nan"))

"""KeyedGrid: a MatrixGrid that answers the key table's "grid" rows (keys.py).

The widget draws a matrix and moves its cell cursor; which keys move it is the key table's,
and the table names screens (the switch keys), so the bindings are put on here, on the screens'
side: widgets import no key table (pyproject.toml's layers contract).
"""

from __future__ import annotations

from .. import keys
from ..widgets.matrix_grid import MatrixGrid


class KeyedGrid(MatrixGrid):
    """A MatrixGrid with keys.py's "grid" bindings: arrows, home/end, page up/down, enter.
    Styled as every MatrixGrid (a CSS type selector matches the subclass)."""

    BINDINGS = keys.bindings("grid")

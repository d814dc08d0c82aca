"""Messages that widgets post up to the app (attributes down, messages up).

Kept in one module so every pane speaks the same vocabulary. Handlers on the
app turn each into a new State.
"""

from __future__ import annotations

from textual.message import Message


class CellCursorMoved(Message):
    """A grid's cell cursor moved to (row, col) of the matrix ``name``."""

    def __init__(self, name: str, row: int, col: int) -> None:
        super().__init__()
        self.name, self.row, self.col = name, row, col


class RowSelected(Message):
    """The learner picked query row ``row`` (0-based) in some pane."""

    def __init__(self, row: int) -> None:
        super().__init__()
        self.row = row


class EditRequested(Message):
    """`enter` on cell (row, col) of matrix ``name`` (X, W_Q, W_K, W_V, Y, Q, K, V)."""

    def __init__(self, name: str, row: int, col: int) -> None:
        super().__init__()
        self.name, self.row, self.col = name, row, col

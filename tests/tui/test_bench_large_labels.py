"""MatrixGrid measures its row labels once per label set, not on every show (at T = 16384 that was
~1 ms per grid per keypress: the largest cost of `+` in the --large bench)."""

from __future__ import annotations

import numpy as np
from textual.app import App

from attn_tui.tui.widgets.matrix_grid import LABEL_MAX, MatrixGrid


class Counted(str):
    """A label that counts how often its length is taken."""

    calls = 0

    def __len__(self):
        Counted.calls += 1
        return str.__len__(self)


class GridApp(App):
    CSS = "MatrixGrid { width: 60; height: 8; }"

    def compose(self):
        yield MatrixGrid("S")


async def test_label_width_measured_once_per_label_set():
    a = np.linspace(-1, 1, 36).reshape(6, 6)
    rows = [Counted(f"t{i}") for i in range(1, 7)]
    cols = [f"k{i}" for i in range(1, 7)]
    async with GridApp().run_test(size=(80, 12)) as pilot:
        grid = pilot.app.query_one(MatrixGrid)
        grid.show(a, rows, cols, version=1)
        await pilot.pause()
        assert grid._lw == 3 and Counted.calls >= 6  # "t1".."t6" and a space
        Counted.calls = 0
        for version in (2, 3):  # new values (as `+` brings), the same labels: none measured
            grid.show(a * version, list(rows), cols, version=version)
        assert Counted.calls == 0 and grid._lw == 3
        longer = rows[:-1] + [Counted("a-long-label-of-many-letters")]
        grid.show(a, longer, cols, version=4)  # other labels: measured again, capped at LABEL_MAX
        assert Counted.calls >= 6 and grid._lw == LABEL_MAX + 1
        grid.show(a, [f"t{i}" for i in range(1, 7)], cols, version=5)  # and back
        assert grid._lw == 3

"""MatrixGrid's protocol (widgets/matrix_grid.py): it reads only the cells it draws of a matrix
it is given as any sliceable object, takes its width and colour scale from lo/hi, and reads
nothing when the version says the values are unchanged."""

from __future__ import annotations

import numpy as np
from textual.app import App

from attn_tui.core.finite import finite_range
from attn_tui.tui.widgets import palette as P
from attn_tui.tui.widgets.matrix_grid import MatrixGrid


class Lazy:
    """A matrix that records every read and refuses to be read whole (np.asarray, array_equal)."""

    def __init__(self, a: np.ndarray) -> None:
        self._a, self.shape, self.reads = a, a.shape, []

    def __getitem__(self, key):
        self.reads.append(key)
        return self._a[key]

    def __array__(self, *args, **kw):
        raise AssertionError("the whole matrix was read")


class GridApp(App):
    CSS = "MatrixGrid { width: 60; height: 8; }"

    def compose(self):
        yield MatrixGrid("S")


def rows_read(lazy: Lazy) -> set[int]:
    return {key[0] for key in lazy.reads}


def big(n: int = 400) -> np.ndarray:
    return np.arange(n * n, dtype=np.float64).reshape(n, n) / (n * n) - 0.5


async def test_a_lazy_matrix_is_read_only_where_drawn():
    a = big()
    values, blocked = Lazy(a), Lazy(a > 0.4)
    labels = [f"token{i}" for i in range(1, a.shape[0] + 1)]  # a label column wide enough for the legend
    lo, hi = finite_range(a)
    app = GridApp()
    async with app.run_test(size=(80, 12)) as pilot:
        grid = app.query_one(MatrixGrid)
        grid.show(values, labels, labels, kind="div", blocked=blocked, lo=lo, hi=hi, version=1)
        await pilot.pause()
        drawn = grid.size.height - 1  # the header line, then one line per row
        assert rows_read(values) == set(range(drawn))
        cols = {(k[1].start, k[1].stop) for k in values.reads}
        assert all(c1 - c0 <= grid.size.width // grid._w + 1 for c0, c1 in cols)  # the visible columns only
        assert P.width_for(lo, hi) == 6 and grid._w == 8  # numbers need 6; "token123" needs 8 (no digit dropped)
        legend = grid.render_line(0).text.split()[0]  # "-.5█▁█.5": the range from lo and hi, a bar between
        assert legend.startswith("-.5") and legend.endswith(".5")
        values.reads.clear()
        blocked.reads.clear()
        grid.show(values, labels, labels, kind="div", blocked=blocked, lo=lo, hi=hi, version=1)
        await pilot.pause()
        assert values.reads == [] and blocked.reads == []  # same version: nothing read


async def test_colours_come_from_the_whole_matrix_range():
    """A screenful of small values in a matrix whose range is ±10 is drawn in pale buckets."""
    a = np.full((50, 50), 0.1)
    a[-1, -1], a[-1, -2] = 10.0, -10.0
    app = GridApp()
    async with app.run_test(size=(80, 12)) as pilot:
        grid = app.query_one(MatrixGrid)
        labels = [str(i) for i in range(50)]
        grid.show(Lazy(a), labels, labels, kind="div", lo=-10.0, hi=10.0, version="v")
        await pilot.pause()
        _, codes = grid._row_cells(0, 0, 3)
        assert set(codes) == {int(P.buckets(np.array([0.1, 10, -10]), "div")[0])}
        assert set(codes) == {P.DIV_BUCKETS // 2}  # 0.1 of a ±10 scale: the neutral bucket

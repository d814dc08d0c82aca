"""A change of a large scenario whose rows on screen take long to compute is computed in a thread
worker (screens/warm.py): the last drawing stays, a note says it is computing, keys are answered,
a newer change cancels the older, and the screen then shows the newest state's numbers, with no
row statistics computed on the event loop."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from attn_tui.core import stream
from attn_tui.core.lazy import LazyTrace
from attn_tui.core.scenario_io import resolve
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens import warm
from attn_tui.tui.widgets.matrix_grid import MatrixGrid

T = 600


@pytest.fixture
def big(tmp_path):
    rng = np.random.default_rng(23)
    p = tmp_path / "big.npz"
    np.savez(p, **{k: rng.standard_normal((T, 8)) for k in "QKV"}, mask=np.array("causal"))
    return resolve(p, large=True)


def computing(app) -> bool:
    return any(m.startswith(f"computing the rows on screen over {T} keys") for m in app.notes.messages())


async def test_a_costly_change_is_computed_in_a_worker_and_the_newest_is_drawn(big, settle, monkeypatch):
    monkeypatch.setattr(warm, "WARM_WORK", 0)  # every change of this small-large scenario counts as costly
    go, threads, on_loop = threading.Event(), [], []
    real_warm, real_stats = LazyTrace.warm, stream.row_stats

    def held(self, old, cancelled=lambda: False):
        threads.append(threading.current_thread())
        go.wait(30)
        return real_warm(self, old, cancelled)

    def counted(*a, **k):
        if threading.current_thread() is threading.main_thread():
            on_loop.append(a[1:3])
        return real_stats(*a, **k)

    monkeypatch.setattr(LazyTrace, "warm", held)
    app = AttentionApp(scenario=big)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#grid-A", MatrixGrid)
        before = grid.values[0:3, 0:3].copy()
        monkeypatch.setattr(stream, "row_stats", counted)
        await pilot.press("plus")  # no settle while the worker is held: settle waits for workers
        await pilot.pause()
        assert computing(app) and threads and threads[0] is not threading.main_thread()
        np.testing.assert_array_equal(grid.values[0:3, 0:3], before)  # the last drawing, kept
        await pilot.press("j", "plus")  # answered meanwhile; the second `+` cancels the first worker
        await pilot.pause()
        assert app.state.row == 1 and app.state.scenario.c == pytest.approx(1.1**2)
        go.set()
        await settle(pilot)
        assert not computing(app) and on_loop == []  # every row block was computed in a worker
        assert app.screen.shown is app.state
        full = app.state.scenario.run()  # the exact full path, for the comparison only
        np.testing.assert_allclose(grid.values[0:3, 0:3], full.A[0:3, 0:3], rtol=1e-12, atol=1e-15)
        assert not np.allclose(grid.values[0:3, 0:3], before)


async def test_a_cheap_change_is_drawn_at_once(big, settle):
    app = AttentionApp(scenario=big)  # T = 600, d = 8: far below WARM_WORK
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("plus")
        assert app.screen.shown is app.state and not computing(app)

"""The explorer on a large scenario (T above 512, opened from an .npz): grids read lazily and show
the full trace's numbers, the lenses run in a worker that the next change cancels while the
keys are answered, and nothing exports or saves a T x T' matrix."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest
from rich.console import Console

from attn_tui.core.export import export
from attn_tui.core.lazy import LazyTrace
from attn_tui.core.scenario_io import resolve, save
from attn_tui.tui import framework
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.lenses import LensesScreen
from attn_tui.tui.views import lenses as lens_views
from attn_tui.tui.views import rank_lens
from attn_tui.tui.widgets.lens_panels import RankPanel, with_help
from attn_tui.tui.widgets.matrix_grid import MatrixGrid

T = 600


def rendered(renderable) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def panel_text(app, pid: str) -> str:
    return rendered(app.screen.query_one(f"#{pid}").content)  # the panel's help, then its lens


def lens_busy(screen) -> bool:
    """True while a lens worker of ``screen`` runs (Textual's worker list, group "lenses")."""
    return any(w.group == "lenses" and not w.is_finished for w in screen.workers)


RNG = np.random.default_rng(17)


@pytest.fixture
def big(tmp_path):
    p = tmp_path / "big.npz"
    np.savez(p, **{k: RNG.standard_normal((T, 8)) for k in "QKV"})
    return resolve(p, large=True)


async def test_grids_show_the_full_traces_cells(big, settle, tiles_computed):
    app = AttentionApp(scenario=big)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("plus", "j", "j")
        await settle(pilot)
        assert isinstance(app.state.trace, LazyTrace) and app.state.row == 2
        full = app.state.scenario.run()  # the exact full path, for the comparison only
        for name, want in (("A", full.A), ("S", full.S), ("O", full.O)):
            grid = app.screen.query_one(f"#grid-{name}", MatrixGrid)
            assert grid.values.shape == want.shape
            np.testing.assert_allclose(grid.values[2, 0:40], want[2, :40], rtol=1e-12, atol=1e-15)
        assert tiles_computed(app.state.trace.A) <= 4  # the visible tiles, not 600 x 600


@pytest.mark.slow
async def test_lenses_run_in_a_worker_that_the_next_change_cancels(big, settle, monkeypatch):
    gate, started = threading.Event(), threading.Event()
    build, title, helptext = lens_views.PANELS["lens-corr"]

    def held(state):  # the first lens waits for the test: the worker is surely running meanwhile
        started.set()
        gate.wait(10)
        return build(state)

    monkeypatch.setitem(lens_views.PANELS, "lens-corr", (held, title, helptext))
    app = AttentionApp(scenario=big)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l")  # no settle while the gate is shut: settle waits for workers
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LensesScreen) and started.wait(10) and lens_busy(screen)
        await pilot.press("j", "plus")  # answered while the worker is held
        await pilot.pause()
        assert app.state.row == 1 and app.state.scenario.c == pytest.approx(1.1)
        gate.set()
        await settle(pilot)
        assert not lens_busy(screen)
        for pid, (lens, _title, panel_help) in lens_views.PANELS.items():  # the last state's lenses, not a stale one
            assert panel_text(app, pid) == rendered(with_help(panel_help, lens(app.state))), pid
        rank = screen.query_one(RankPanel)
        want = with_help(rank.HELP, rank_lens.rank_reading(app.state))
        assert rendered(rank.query_one("#rank-text").content) == rendered(want)
        assert "computing" not in panel_text(app, "lens-box") and "row 2" in panel_text(app, "lens-box")


def test_no_full_matrix_is_exported_or_saved(big, tmp_path):
    with pytest.raises(ValueError, match=f"{T} tokens: matrices are exported up to 512 tokens"):
        export(big, LazyTrace(big), tmp_path / "out")
    with pytest.raises(ValueError, match=f"{T} tokens: a TOML scenario holds at most 512"):
        save(big, tmp_path / "big.toml")
    assert not (tmp_path / "out").exists() and not (tmp_path / "big.toml").exists()


async def test_save_is_refused_before_a_name_is_typed(big, settle):
    from attn_tui.tui.screens.files import SaveScreen

    app = AttentionApp(scenario=big)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert not isinstance(app.screen, SaveScreen)  # no dialog to type a name into
        shown = [n.message for n in framework.shown_notifications(app)]
        assert any(f"not saved: {T} tokens: a TOML scenario holds at most 512" in m for m in shown), shown

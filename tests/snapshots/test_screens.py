"""Snapshots of the lenses, experiments and tour screens at 120×40 (each looked at as PNG)."""

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.lenses import LensesScreen
from attn_tui.tui.screens.tour import TourScreen

SIZE = (120, 40)


async def _open(pilot, key: str, screen_type) -> None:
    await pilot.pause()
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(pilot.app.screen, screen_type)


def test_snapshot_experiments(snap_compare, open_experiments, settle):
    async def setup(pilot):
        await open_experiments(pilot)
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=SIZE, run_before=setup)


def test_snapshot_lenses(snap_compare, settle):
    async def setup(pilot):
        await pilot.pause()  # the pipeline's grid cursor also selects a row: let it settle first
        pilot.app.set_state(pilot.app.state.with_(row=3))
        await _open(pilot, "l", LensesScreen)
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=SIZE, run_before=setup)


def test_snapshot_tour_objectives(snap_compare, settle):
    async def setup(pilot):
        await _open(pilot, "t", TourScreen)
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=SIZE, run_before=setup)


def test_snapshot_tour_output_page(snap_compare, settle):
    async def setup(pilot):
        await _open(pilot, "t", TourScreen)
        while pilot.app.screen.page.key != "output":
            await pilot.press("n")
            await pilot.pause()
        pilot.app.set_state(pilot.app.state.with_(row=3))
        await pilot.press("0", ".", "8", "enter")  # a prediction: the page reveals O and its reading
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=SIZE, run_before=setup)

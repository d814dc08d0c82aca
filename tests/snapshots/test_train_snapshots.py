"""Snapshots of the training screen after the default run (seeded, so the same every time), at
120×40 and 80×24, and with the comparison shown (two small d_k, few steps: the layout, not the
figures; those are tested in tests/core and tests/report). Each was looked at as PNG."""

from __future__ import annotations

import pytest

from attn_tui.core.train import compare
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.train import TrainScreen

pytestmark = pytest.mark.slow  # each trains first (the training screen's own tests stay in the fast lane)


async def _trained(pilot, settle) -> None:
    await pilot.pause()
    await pilot.press("L")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, TrainScreen)
    await pilot.press("space")
    await settle(pilot)


@pytest.mark.long
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.usefixtures("unpaced")
def test_snapshot_train_after_the_default_run(snap_compare, settle, size):
    async def setup(pilot):
        await _trained(pilot, settle)

    assert snap_compare(AttentionApp(), terminal_size=size, run_before=setup)


@pytest.mark.long
@pytest.mark.usefixtures("unpaced")
def test_snapshot_train_comparison(snap_compare, settle, monkeypatch):
    monkeypatch.setattr(compare, "DKS", (4, 64))
    monkeypatch.setattr(compare, "COMPARE_STEPS", 200)

    async def setup(pilot):
        await _trained(pilot, settle)
        await pilot.press("c")
        await settle(pilot)

    assert snap_compare(AttentionApp(), terminal_size=(120, 40), run_before=setup)

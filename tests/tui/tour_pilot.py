"""Driving the tour in a pilot test: open it, and page forward to a page by its key."""

from __future__ import annotations

from attn_tui.tui.screens.tour import TourScreen


async def open_tour(pilot) -> TourScreen:
    await pilot.pause()
    await pilot.press("t")
    await pilot.pause()
    assert isinstance(pilot.app.screen, TourScreen)
    return pilot.app.screen


async def goto(pilot, screen, key: str) -> None:
    while screen.page.key != key:
        await pilot.press("n")
        await pilot.pause()

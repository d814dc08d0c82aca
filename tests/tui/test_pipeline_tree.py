"""The pipeline screen's widget tree holds no container it does not need: every widget costs
the first frame (styles, layout, render) and every keypress (the compositor renders the
containers behind a changed line; Pilot waits on each widget). The page lays its panes out in
lines itself (screens/pane_lines.py), where rows of Horizontal containers did before."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pipeline import ROWS


async def test_the_panes_are_the_pages_own_children():
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        page = app.screen.query_one("#pipeline")
        ids = [c.id for c in page.children]
        assert ids == [f"grid-{n}" for names in ROWS for n in names] + ["chart", "inspector"]


def lines_of(app) -> list[list[str]]:
    """The shown panes grouped by the screen line they start on, left to right."""
    page = app.screen.query_one("#pipeline")
    tops: dict[int, list] = {}
    for c in page.children:
        if c.display:
            tops.setdefault(c.virtual_region.y, []).append(c)
    return [[c.id for c in sorted(row, key=lambda c: c.virtual_region.x)] for _y, row in sorted(tops.items())]


async def test_each_row_on_one_line_at_120x40_with_no_gap_or_overlap():
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert set(app.screen.row_modes.values()) == {"line"}
        assert lines_of(app) == [
            ["grid-X", "grid-W_Q", "grid-W_K"],
            ["grid-W_V", "grid-Q", "grid-K"],
            ["grid-V", "grid-S", "grid-M"],
            ["grid-A", "grid-O", "grid-H"],
            ["chart", "inspector"],
        ]
        page = app.screen.query_one("#pipeline")
        panes = [c for c in page.children if c.display]
        for a in panes:  # panes never overlap; one column (the margin) between neighbours on a line
            for b in panes:
                if a is not b:
                    assert not a.virtual_region.overlaps(b.virtual_region), (a.id, b.id)
        grids = app.screen.grids
        assert grids["W_Q"].virtual_region.x == grids["X"].virtual_region.right + 1
        # a line starts under the tallest pane of the line above it (W_Q is a row taller than X)
        assert grids["W_V"].virtual_region.y == max(grids[n].virtual_region.bottom for n in ("X", "W_Q", "W_K"))


async def test_a_wrapped_row_puts_its_third_pane_under_the_first_two():
    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        modes = app.screen.row_modes
        wrapped = [ROWS[int(row[3:])] for row, mode in modes.items() if mode == "wrapped"]
        assert wrapped, modes
        grids = app.screen.grids
        for a, b, c in wrapped:
            assert grids[a].virtual_region.y == grids[b].virtual_region.y < grids[c].virtual_region.y
            assert grids[c].virtual_region.x == grids[a].virtual_region.x
            assert grids[c].virtual_region.y == max(grids[a].virtual_region.bottom, grids[b].virtual_region.bottom)


@pytest.mark.slow
async def test_new_lines_lay_the_page_out_again_at_the_same_size():
    """The page caches its arrangement by its size: new lines alone must still move the panes."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        page, grids = app.screen.query_one("#pipeline"), app.screen.grids
        lines = list(page.pane_lines.lines)
        assert lines[0] == ("grid-X", "grid-W_Q", "grid-W_K")
        page.set_lines([("grid-X",), ("grid-W_Q", "grid-W_K"), *lines[1:]])
        await pilot.pause()
        assert grids["W_Q"].virtual_region.y == grids["X"].virtual_region.bottom
        assert grids["W_Q"].virtual_region.x == 0

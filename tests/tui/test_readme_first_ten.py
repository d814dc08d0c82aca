"""The README's "Your first ten minutes", done as it says on the explorer as a user opens it (row t4),
and each claim it makes checked on the state and the screen after those keys."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from attn_tui.core.builtins import DEFAULT, builtin
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.editor import CellEditor

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
SIZE = (120, 40)


def first_ten() -> str:
    return README[README.index("## Your first ten minutes") : README.index("## Where the rest is")]


def test_the_readme_names_five_things_with_their_keys():
    steps = re.findall(r"^\d\. \*\*", first_ten(), flags=re.MULTILINE)
    assert len(steps) == 5
    for keys in ("Press `+`", "`-` flattens", "`0`", "`P` pins", "`u` turns", "`m` turns", "to the X grid"):
        assert keys in first_ten(), keys


async def test_the_knob_pin_scaling_and_mask_do_what_it_says(settle):
    app = AttentionApp(scenario=builtin(DEFAULT))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state.row == 3  # row t4, as the README says the explorer opens
        a0, h0 = app.state.trace.A[3, 0], app.state.trace.H[3]
        await pilot.press("plus", "plus", "plus")
        await settle(pilot)
        h3 = app.state.trace.H[3]
        assert app.state.trace.A[3, 0] > a0 and h3 < h0  # sharper onto "mat"
        await pilot.press("minus")
        await settle(pilot)
        assert app.state.trace.H[3] > h3  # flatter
        await pilot.press("0")
        await settle(pilot)
        assert app.state.scenario.c == 1.0 and app.state.trace.H[3] == h0
        await pilot.press("P", "plus", "plus")
        await settle(pilot)
        assert "ΔA" in app.screen.query_one("#grid-A").border_title
        assert "ΔH" in app.screen.query_one("#grid-H").render_line(0).text
        await pilot.press("P", "0", "u")
        await settle(pilot)
        assert not app.state.scenario.scaled and app.state.trace.H[3] < h0  # sharper without 1/√d_k
        await pilot.press("u", "m")
        await settle(pilot)
        upper = app.state.trace.A[np.triu_indices(len(app.state.trace.A), 1)]
        assert app.state.scenario.mask == "none" and (upper > 0).any()  # the upper triangle fills in


async def test_an_input_change_flows_through(settle):
    app = AttentionApp(scenario=builtin(DEFAULT))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before, x0 = app.state.trace, app.state.scenario.X
        for _ in range(12):  # `tab` to the X grid, as a user would
            if app.focused is not None and app.focused.id == "grid-X":
                break
            await pilot.press("tab")
        assert app.focused.id == "grid-X"
        await pilot.press("right", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CellEditor)
        await pilot.press("2", "enter")
        await settle(pilot)
        after, changed = app.state.trace, app.state.scenario.X != x0
        assert changed.sum() == 1 and app.state.scenario.X[changed][0] == 2.0  # the typed 2 replaced the cell
        for name in ("Q", "K", "V", "S", "A", "O"):
            assert not np.array_equal(getattr(before, name), getattr(after, name)), name
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert np.array_equal(app.state.trace.A, before.A)

"""The weighting key W on a multi-head source: the A grid's cells become A[t, j]·‖v_j‖/max‖v‖ (then
through W_O), its title says which, the heads screen's header too; a third W brings A back."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref

SIZE = (120, 40)


@pytest.mark.slow
async def test_w_cycles_what_a_shows(settle):
    s, ref = open_ref("induction-demo", "a b c d a b c d", 1, 2)
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#grid-A")
        A = app.state.trace.A
        await pilot.press("W")
        await settle(pilot)
        assert app.state.weighting == "value"
        want = A * app.state.key_scale
        t, j = np.unravel_index(np.nanargmax(np.abs(A - want)), A.shape)  # the cell weighting moves most
        assert abs(want[t, j] - A[t, j]) > 1e-2
        assert float(grid.cell_text(t, j)) == pytest.approx(want[t, j], abs=5e-4)
        assert "value-weighted" in str(grid.border_title)
        await pilot.press("h")
        await settle(pilot)
        assert "value-weighted A" in app.screen.query_one("#heads-header").render_line(0).text
        await pilot.press("W", "W")
        await settle(pilot)
        assert app.state.weighting == "A"
        assert "weighted" not in app.screen.query_one("#heads-header").render_line(0).text
        np.testing.assert_array_equal(app.state.trace.A, A)

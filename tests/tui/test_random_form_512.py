"""The random form takes d_model, d_k, d_v up to 512, as docs/FILES.md's limits (and a file) do: it
capped them at 256, and the lesson's d_k = 512 case could not be rebuilt (issue 31)."""

from __future__ import annotations

import pytest

from attn_tui.core.edit import EditError
from attn_tui.core.limits import EDIT_MAX
from attn_tui.core.random_scenario import check_params, random_scenario
from attn_tui.tui.app import AttentionApp


def test_the_form_limits_are_the_readmes():
    assert check_params(d_model=EDIT_MAX, d_k=EDIT_MAX, d_v=EDIT_MAX)["d_k"] == 512
    with pytest.raises(EditError, match="from 1 to 512"):
        check_params(d_k=EDIT_MAX + 1)
    s = random_scenario(T=8, d_model=512, d_k=512, d_v=8, seed=1)
    assert s.d_k == 512 and s.run().A.shape == (8, 8)


async def test_the_lessons_d_k_512_from_the_form(settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        for key, val in {"T": "8", "d_model": "512", "d_k": "512", "d_v": "8", "seed": "3"}.items():
            app.screen.query_one(f"#field-{key}").value = val
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.scenario.d_k == 512 and "d_k=512" in app.state.scenario.title

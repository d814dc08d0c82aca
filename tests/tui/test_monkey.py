"""A seeded key monkey: a few thousand keys over every screen and dialog, with resizes down to
20×6. Nothing may crash, hang or leave the state inconsistent (issue: nothing a user types
crashes the app). Files the dialogs write land in a temporary folder."""

from __future__ import annotations

import random

import pytest

from attn_tui.tui.app import AttentionApp

# the long lane: two thousand keys through every screen, ~45 s each on an idle core
pytestmark = [pytest.mark.slow, pytest.mark.long]

# Not q (quits) nor ctrl+p (the palette could run Quit, depending on when its search answers).
KEYS = list("jkPumwbfdcragnNKADRzxltp?+-0=[]") + [
    "up",
    "down",
    "left",
    "right",
    "tab",
    "shift+tab",
    "enter",
    "escape",
    "space",
    "pagedown",
    "pageup",
    "home",
    "end",
    "backspace",
    "ctrl+z",
    "ctrl+y",
    "1",
    "5",
    "9",
    "full_stop",
    "comma",
    "minus",
    "e",
    "s",
    "o",
    "y",
    "n",
    "B",
    "delete",
]
SIZES = [(120, 40), (80, 24), (20, 6), (40, 12), (200, 60), (60, 20), (100, 30)]


def check(app) -> None:
    st = app.state
    assert app.return_code is None, "the app stopped"
    assert 0 <= st.row < st.scenario.T
    assert st.trace.A.shape == (st.scenario.T, st.scenario.T_k)


@pytest.mark.parametrize("seed", [1, 2])
async def test_random_keys_and_resizes_never_crash(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = random.Random(seed)
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        for i in range(1000):
            if i % 60 == 0:
                await pilot.resize_terminal(*rng.choice(SIZES))
            await pilot.press(rng.choice(KEYS))
            if i % 20 == 0:
                await pilot.pause()
                check(app)
        await pilot.pause()
        check(app)

"""The lenses screen's box-kernel switch (`z`): W_Q = W_K = 0 (Q = K = 0 for a scenario given as
Q, K), so every score is 0 and A is the uniform average over the keys each row may read (under
the causal mask Lesson 07's W_avg); `z` again restores what it zeroed (app.box_saved)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..views.box_lens import is_zeroed
from ..views.box_note import zero_scores_words

if TYPE_CHECKING:
    from attn_tui.tui.app_protocol import ExplorerApp


def zero_qk(app: ExplorerApp) -> None:
    """Toggle W_Q = W_K = 0 (Q = K = 0 for a scenario given as Q, K)."""
    state = app.state
    s = state.scenario
    a, b = ("W_Q", "W_K") if s.projected else ("Q", "K")
    saved = app.box_saved
    if not is_zeroed(s):
        app.box_saved = (a, getattr(s, a), getattr(s, b))
        zero = np.zeros_like(getattr(s, a))
        new = state.with_scenario(**{a: zero, b: np.zeros_like(getattr(s, b))})
        app.notes.say(
            f"{a} = {b} = 0 set in the scenario (the pipeline shows it too): {zero_scores_words(s)}. "
            f"z again or ctrl+z restores {a} and {b}.",
            title="Scenario changed",
            timeout=8,
        )
    elif saved and saved[0] == a and saved[1].shape == getattr(s, a).shape and saved[2].shape == getattr(s, b).shape:
        new = state.with_scenario(**{a: saved[1], b: saved[2]})
        app.box_saved = None
        app.notes.say(f"{a} and {b} restored in the scenario.", timeout=4)
    else:
        app.notes.say(
            f"{a} and {b} are already zero in this scenario; nothing to restore.", severity="warning", timeout=3
        )
        return
    why = app.set_state(new)  # the state watchers redraw the panes
    if why:
        app.notes.say(why, severity="warning", timeout=5)

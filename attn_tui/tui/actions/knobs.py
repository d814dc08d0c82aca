"""The explorer's knobs: each applies one of State's pure functions (tui/state.py) to the app's state.

A Refused knob (causal over a different key sequence, c at the end of its range, a head key on a
single-head scenario) leaves the state and says why; a knob that moves nothing (`j` on the last
row) makes no change, so nothing is redrawn and the history records nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..state import Refused
from ..views.weighting import weighting_words

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.tui.app_protocol import ExplorerApp


def _apply(app: ExplorerApp, change: Callable, *args: Any) -> None:
    """Make ``change(*args)`` (a method of the current State) the app's state; a refusal said once."""
    try:
        new = change(*args)
    except Refused as exc:
        app.notes.note(str(exc), "refusal", severity="warning", timeout=8)  # held `+`: one, not a pile
        return
    if new is not app.state:
        why = app.set_state(new)
        if why:
            app.notes.note(why, "refusal", severity="warning", timeout=8)


def scale_by(app: ExplorerApp, factor: float) -> None:
    """`+` / `-`: the scale multiplier c times ``factor`` (C_STEP or its inverse)."""
    _apply(app, app.state.scale_by, factor)


def reset_scale(app: ExplorerApp) -> None:
    """`0`: c = 1 and the 1/√d_k scaling on."""
    _apply(app, app.state.reset_scale)


def toggle_scaled(app: ExplorerApp) -> None:
    """`u`: the 1/√d_k scaling on or off."""
    _apply(app, app.state.toggle_scaled)


def toggle_pin(app: ExplorerApp) -> None:
    """`P`: pin the state now, or unpin."""
    _apply(app, app.state.toggle_pin)


def toggle_mask(app: ExplorerApp) -> None:
    """`m`: causal mask on or off."""
    _apply(app, app.state.toggle_mask)


def cycle_weighting(app: ExplorerApp) -> None:
    """`W`: A as is → value-weighted → info-weighted (a source with W_O) → A, on every pane that shows A."""
    _apply(app, app.state.cycle_weighting)
    app.notes.note(weighting_words(app.state), "weighting", timeout=6)


def select_row(app: ExplorerApp, delta: int) -> None:
    """`j` / `k`: the query row ``delta`` rows on."""
    _apply(app, app.state.select_row, delta)


def step_head(app: ExplorerApp, delta: int) -> None:
    """`>` / `<`: the next or previous head of a multi-head source."""
    _apply(app, app.state.step_head, delta)


def step_layer(app: ExplorerApp, delta: int) -> None:
    """`}` / `{`: the same head number in the next or previous layer."""
    _apply(app, app.state.step_layer, delta)

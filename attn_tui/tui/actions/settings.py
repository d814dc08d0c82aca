"""The settings' actions: the mask, padding, fill, dtype, cross-attention and a random scenario."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core import modes
from ...core.edit import EditError
from ...core.mask_kinds import MASK_KINDS
from ...core.numparse import parse_int
from ...core.random_scenario import DEFAULTS, check_params, random_scenario
from ..screens.editor import FormScreen
from ..screens.pickers import DTYPE_OPTIONS, FILL_OPTIONS, ChoiceScreen, PaddingScreen, mask_options
from . import attempt, commit, refuse

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.app_protocol import ExplorerApp


def pick_mask(app: ExplorerApp) -> None:
    s = app.state.scenario
    app.push_screen(ChoiceScreen("Mask", mask_options(s), s.mask), lambda kind: picked_mask(app, kind))


def picked_mask(app: ExplorerApp, kind) -> None:
    if kind and MASK_KINDS[kind].windowed:
        w = app.state.scenario.window or 2
        app.push_screen(
            FormScreen(
                "Sliding window: token t reads the last w tokens",
                [("w", "width w", w)],
                lambda v: attempt(app, _window, v["w"]),
            )
        )
    elif kind:
        refuse(app, attempt(app, modes.set_mask, kind))


def pick_fill(app: ExplorerApp) -> None:
    def chosen(f: str | None) -> None:
        if f:
            refuse(app, attempt(app, modes.set_fill, f))

    app.push_screen(ChoiceScreen("Fill of masked cells", FILL_OPTIONS, app.state.scenario.fill), chosen)


def pick_dtype(app: ExplorerApp) -> None:
    def chosen(d: str | None) -> None:
        if d:
            refuse(app, attempt(app, modes.set_dtype, d))

    app.push_screen(ChoiceScreen("dtype every step is computed in", DTYPE_OPTIONS, app.state.scenario.dtype), chosen)


def pick_padding(app: ExplorerApp) -> None:
    s = app.state.scenario

    def chosen(pos: tuple | None) -> None:
        if pos is not None:
            refuse(app, attempt(app, modes.set_padding, pos))

    app.push_screen(PaddingScreen(s.keys, s.padding), chosen)


def toggle_cross(app: ExplorerApp) -> None:
    refuse(app, attempt(app, modes.set_cross_keeping_padding, not app.state.scenario.cross))


def random(app: ExplorerApp) -> None:
    """A random Gaussian scenario; after one, the form offers the next seed."""
    s, last = app.state.scenario, app.last_random
    now = (
        dict(last, seed=last["seed"] + 1)
        if last
        else {"T": s.T, "d_model": s.d_model or DEFAULTS["d_model"], "d_k": s.d_k, "d_v": s.d_v, "seed": 0}
    )
    fields = [(k, k, now[k]) for k in ("T", "d_model", "d_k", "d_v", "seed")]
    app.push_screen(
        FormScreen("Random scenario (Gaussian, seeded; T up to 512)", fields, lambda v: _apply_random(app, v))
    )


def _apply_random(app: ExplorerApp, values: dict) -> str | None:
    try:
        p = check_params(**values)
    except EditError as exc:
        return str(exc)
    why = commit(app, random_scenario(**p), note=f"random scenario, seed {p['seed']}", head=None, fresh=True)
    if why:
        return why
    app.last_random = p
    return None


def _window(s: Scenario, text: str):
    """``s`` with a sliding window of the width typed (ASCII digits, 1..T')."""
    return modes.set_mask(s, "window", parse_int(text, "window width", 1, max(1, s.T_k), EditError))

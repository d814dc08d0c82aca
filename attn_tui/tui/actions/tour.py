"""The tour's "try it" (`y` on an exercise page): the scenario, settings and row the exercise needs
(tour_text.TryIt), then its screen. The tour screen asks for it once the page's question is answered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.builtins import builtin
from ..tour_text import PAGES
from . import PIN_DROPPED

if TYPE_CHECKING:
    from attn_tui.tui.app_protocol import ExplorerApp
    from attn_tui.tui.state import State
    from attn_tui.tui.tour_text import TryIt


def _set_up(state: State, tr: TryIt):
    """``state`` as the exercise ``tr`` needs it (the same state when it needs no change)."""
    if tr.builtin:  # another scenario: a pin of the one before would compare nothing changed
        state = state.with_(scenario=builtin(tr.builtin), row=0, cursor=None, head=None).fresh()
    if tr.pin:
        state = state.with_(pin=None).toggle_pin()  # the difference the exercise asks about
    if tr.changes:
        state = state.with_scenario(**dict(tr.changes))
    if tr.row is not None:
        state = state.with_(row=min(tr.row, state.scenario.T - 1))
    return state


async def try_it(app: ExplorerApp, page: str) -> None:
    """Set up the exercise of the tour page keyed ``page`` and switch to its screen."""
    p = next(x for x in PAGES if x.key == page)
    tr = p.try_it
    if tr is None:
        return
    if tr.builtin and app.state.pin is not None and not tr.pin:
        app.notes.note(PIN_DROPPED, "change", timeout=5)
    state = _set_up(app.state, tr)
    if state is not app.state:  # the cost lens reads the scenario as it is
        why = app.set_state(state)
        if why:  # the exercise's change does not compute in this scenario: stay on the tour
            app.notes.say(why, severity="warning", timeout=8)
            return
    await app.switch_mode(tr.mode)
    show = getattr(app.screen, "show_lens", None)
    if tr.mode == "lenses" and show:
        show("lens-cost")
    hook = getattr(app.screen, "try_it", None)  # a screen's own set-up (the training screen compares)
    if callable(hook):
        hook()
    app.notes.say(f"{p.title}: {tr.label}. Press t to come back to the tour.", timeout=5)

"""Large scenarios: a change whose rows on screen take long to compute is computed in a worker.

Above DENSE_MAX tokens the grids, the chart and the entropy table read a core.lazy.LazyTrace.
A's cells need each row's statistics over all T' keys, a pass over Q Kᵀ (and A V) for each
block of 16 rows: at T = 16384, d = 256 about 15 ms a block, 60-100 ms for the blocks on
screen, on the event loop, per `+`. When LazyTrace.warm_cost says a change would spend more
than WARM_WORK multiply-adds there, the screen keeps the last drawing, a note says it is
computing, and a thread worker computes what the screen read of the last trace
(LazyTrace.warm); the screen then draws the new state from the caches. A newer change cancels
the worker (the blocks it finished stay cached for the next one).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

if TYPE_CHECKING:
    from attn_tui.tui.state import State

WARM_WORK = 100_000_000  # multiply-adds: about one row block at T = 16384, d_k = d_v = 192 (~12 ms here)
NOTE = "computing"  # the note's kind (app.notes)


def start(screen, state: State) -> bool:
    """True when ``state`` is being computed in a worker (the screen draws it when done): a large
    state after a large one, with more than WARM_WORK left to compute for the rows on screen."""
    old = screen.shown
    if state is None or old is None or not (state.large and old.large) or state.scenario is old.scenario:
        return False
    from ...core.lazy import warm_cost  # both states are large: core.lazy is loaded already

    before = old.trace
    if state.scenario.T != before.src.T or state.scenario.T_k != before.src.T_k:
        return False  # another shape: nothing of the last drawing to go by
    if warm_cost(before, state.built_trace) <= WARM_WORK:
        return False
    T_k = before.src.T_k
    screen.app.notes.note(f"computing the rows on screen over {T_k:,} keys …", NOTE, timeout=60)
    screen.run_worker(partial(_work, screen, state, before), thread=True, group="warm", exclusive=True)
    return True


def drawn(screen) -> None:
    """The screen drew its state: a note of a computation still shown is out of date."""
    screen.app.notes.drop(NOTE)


def _work(screen, state: State, before) -> None:
    worker = get_current_worker()
    try:
        state.trace.warm(before, lambda: worker.is_cancelled)
    except Exception:  # noqa: BLE001  the drawing computes what is missing and meets the error there
        pass
    if not worker.is_cancelled:
        screen.app.call_from_thread(_done, screen, state)


def _done(screen, state: State) -> None:
    if screen.app.state is state:  # else a newer state is being shown or computed
        screen.show(state)

"""The explorer's one BLAS thread (cli/explorer.py:run): set before its first frame when that frame computes much,
else once the frame is drawn (threadpoolctl's import and library scan are ~3 ms of a launch)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attn_tui.tui.state import State


def one_blas_thread() -> None:
    """One BLAS thread: the explorer's products are small (16 query rows x 2048 keys at T = 16384),
    and a second thread made A's row statistics 3-4x slower on a busy 2-core machine (7 -> 25 ms)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def limit_blas(app) -> None:
    """One BLAS thread for the explorer: now when its first frame computes much, else after it."""
    if blas_first(app.state):
        one_blas_thread()
    else:  # a small first frame: its products are tiny whatever the threads (~3 ms of the launch later)
        app.after_first.append(one_blas_thread)


def blas_first(state: State) -> bool:
    """One BLAS thread before the first frame: a large scenario's first frame computes its rows on
    screen, a multi-head source's neighbours are computed in a worker from the start."""
    return state.large or state.head is not None

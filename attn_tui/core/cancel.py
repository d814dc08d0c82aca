"""Work its caller may abandon: long loops over heads ask ``check()`` between steps.

A thread that runs such work on someone's behalf (the explorer's worker threads:
tui/worker_threads.py) sets, with ``cancellable(is_cancelled)``, what says that the result is no
longer wanted: a newer request superseded it, or the app quits. ``check()`` then raises Cancelled,
and the loop stops within one step (a head's row block), instead of reading every head to the end
while the next request runs beside it. Elsewhere (the CLI, tests) nothing is set and check() costs
one attribute lookup.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_here = threading.local()


class Cancelled(BaseException):  # noqa: N818  (what happened, as asyncio's CancelledError says)
    """The work's result is no longer wanted. A BaseException, as asyncio.CancelledError: no
    ``except Exception`` backstop on the way (a file reader's one line) takes it for an error."""


@contextmanager
def cancellable(is_cancelled: Callable[[], bool]) -> Iterator[Any]:
    """In this thread, until the block ends, check() raises Cancelled once ``is_cancelled()`` is true."""
    before = getattr(_here, "is_cancelled", None)
    _here.is_cancelled = is_cancelled
    try:
        yield
    finally:
        _here.is_cancelled = before


def check() -> None:
    """Cancelled when this thread's work is no longer wanted (see cancellable); else nothing."""
    is_cancelled = getattr(_here, "is_cancelled", None)
    if is_cancelled is not None and is_cancelled():
        raise Cancelled

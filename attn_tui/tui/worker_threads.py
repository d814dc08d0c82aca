"""The event loop's default executor, whose threads never hold up the explorer's exit.

Textual runs a ``@work(thread=True)`` worker through ``loop.run_in_executor(None, ...)``. With
asyncio's own default (a ThreadPoolExecutor), quitting waited for the read under way: ``asyncio.run``
shuts that executor down with ``wait=True``, and the interpreter joins its threads at exit. A heads
screen reading 1,024 heads, or the model view reading 64 × 64, kept the process burning a CPU after
its screen had gone, deaf to q, Ctrl-C and SIGTERM (issue 52 item 2). Here each call runs in a
daemon thread of its own and shutdown waits for none: a read still going when the app has exited
is abandoned with the process. A worker that is cancelled (superseded by the next one of its
exclusive group, or by the app's exit) stops at its next ``core.cancel.check()``, a head's row block
at most later: its thread runs under ``cancellable`` of its worker. Before, R and j six times on a
long file left six rollouts reading side by side (3.55 GB).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from textual.worker import NoActiveWorker, get_current_worker

from ..core.cancel import Cancelled, cancellable


def _worker_cancelled() -> bool:
    """The Textual worker this thread runs for has been cancelled (False outside a worker)."""
    try:
        return get_current_worker().is_cancelled
    except NoActiveWorker:
        return False


class DaemonExecutor(ThreadPoolExecutor):
    """A ThreadPoolExecutor (asyncio accepts no other as a loop's default) that starts a daemon
    thread a call and never waits on shutdown. None of the pool's own threads is ever started."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="attn-worker")

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                with cancellable(_worker_cancelled):
                    result = fn(*args, **kwargs)
            except Cancelled:  # its worker was cancelled: nobody awaits a result
                future.set_result(None)
            except BaseException as exc:  # handed to the awaiting worker, as the pool does
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name="attn-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to wait for: a call still running dies with the process."""


def install(loop) -> None:
    """``loop``'s default executor becomes a DaemonExecutor (before the first worker starts)."""
    loop.set_default_executor(DaemonExecutor())

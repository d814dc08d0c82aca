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

A cancelled worker still holds what it read until that check, so a call of a worker waits until the
cancelled calls of its node and group that started before it have stopped (``_Gate``): a key held
down starts the rollouts one at a time instead of six stopping side by side (R then j x 6 on a
16-head x 16,384 x d 256 file: 803 MiB peak here before, issue 52's 633 MB).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from textual.worker import NoActiveWorker, Worker, get_current_worker

from ..core.cancel import Cancelled, cancellable

if TYPE_CHECKING:
    from typing import Any


def _worker_cancelled() -> bool:
    """The Textual worker this thread runs for has been cancelled (False outside a worker)."""
    try:
        return get_current_worker().is_cancelled
    except NoActiveWorker:
        return False


def _current_worker() -> Worker | None:
    try:
        return get_current_worker()
    except NoActiveWorker:
        return None


class _Gate:
    """The calls running for each (node, group) of workers, in the order they were submitted. A call
    starts once every earlier call of its node and group that is cancelled has stopped; earlier calls
    that are not cancelled (a group that is not exclusive) run beside it as before."""

    RECHECK = 0.1  # s: while waiting, how often a call looks whether it was cancelled itself

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict = {}  # (id(node), group) -> [(worker, stopped Event)]

    def enter(self, worker: Worker) -> tuple:
        """On the event loop, as the call is submitted: (key, its stopped Event, the calls before it)."""
        key, stopped = (id(worker.node), worker.group), threading.Event()
        with self._lock:
            calls = self._running.setdefault(key, [])
            before = list(calls)
            calls.append((worker, stopped))
        return key, stopped, before

    def wait(self, worker: Worker, before: list) -> bool:
        """In the call's thread: until the cancelled calls before it have stopped; False when this
        call's own worker is cancelled meanwhile (it then never starts)."""
        while not worker.is_cancelled:
            ahead = [stopped for w, stopped in before if w.is_cancelled and not stopped.is_set()]
            if not ahead:
                return True
            ahead[0].wait(self.RECHECK)
        return False

    def leave(self, key, stopped: threading.Event) -> None:
        stopped.set()
        with self._lock:
            calls = [c for c in self._running.get(key, []) if c[1] is not stopped]
            if calls:
                self._running[key] = calls
            else:
                self._running.pop(key, None)


GATE = _Gate()


class DaemonExecutor(ThreadPoolExecutor):
    """A ThreadPoolExecutor (asyncio accepts no other as a loop's default) that starts a daemon
    thread a call and never waits on shutdown. None of the pool's own threads is ever started."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="attn-worker")

    def submit(self, fn, /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        worker = _current_worker()  # submitted from its worker's task (None: asyncio's own calls)
        gate = GATE.enter(worker) if worker is not None else None

        def run() -> None:
            try:
                if not future.set_running_or_notify_cancel():
                    return
                if gate is not None and worker is not None and not GATE.wait(worker, gate[2]):
                    future.set_result(None)  # cancelled before it started: nobody awaits a result
                    return
                _call(future, fn, args, kwargs)
            finally:
                if gate is not None:
                    GATE.leave(gate[0], gate[1])

        threading.Thread(target=run, name="attn-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to wait for: a call still running dies with the process."""


def _call(future: Future, fn, args: Any, kwargs: Any) -> None:
    try:
        with cancellable(_worker_cancelled):
            result = fn(*args, **kwargs)
    except Cancelled:  # its worker was cancelled: nobody awaits a result
        future.set_result(None)
    except BaseException as exc:  # handed to the awaiting worker, as the pool does
        future.set_exception(exc)
    else:
        future.set_result(result)


def install(loop) -> None:
    """``loop``'s default executor becomes a DaemonExecutor (before the first worker starts)."""
    loop.set_default_executor(DaemonExecutor())

"""Independent training runs side by side, each in a process of its own.

A run is thousands of small NumPy calls with Python between them: threads would share one GIL
and take turns (and slow the screen that shares it), while processes run at once, one a CPU.
Runs(configs, jobs) starts ``jobs`` Python processes (``python -m attn_tui.core.train.pool``);
each reads the next (index, config) from its stdin, run()s it and writes the summary to its
stdout (pickled: the very floats run() returns here, from the same NumPy and BLAS, so the
comparison reads the same in the app, in the CLI and in this process). results() yields
(index, summary) as runs finish; cancel() kills the processes at once, from any thread.
run_all(configs, jobs) is the summaries in order, in this process when ``jobs`` is 1.

Plain subprocesses, not multiprocessing: inside the app stderr is Textual's capture, whose
fileno() is not a file, and multiprocessing's start passes it on and fails.
"""

from __future__ import annotations

import os
import pickle
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .run import Config, run

if TYPE_CHECKING:
    from typing import Any

POLL = 0.1  # seconds between looks at stop() while the runs go on
QUIT = 5.0  # seconds a child told "no more" may take to return before it is killed
ROOT = Path(__file__).resolve().parents[3]  # the folder holding attn_tui: the children import this copy


def _child_env() -> dict[Any, Any]:
    """This environment, with ROOT first on PYTHONPATH for a source checkout (an installed copy is
    found anyway; site-packages ahead of the standard library could shadow it)."""
    if {"site-packages", "dist-packages"} & set(ROOT.parts):
        return dict(os.environ)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}


def serve(stdin: Any | None = None, stdout: Any | None = None) -> None:
    """A child: run() each pickled (index, config) read until None or the end of its input; write
    (index, summary, None) or (index, None, the error in one line), pickled, after each."""
    stdin, stdout = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    while True:
        try:
            job = pickle.load(stdin)
        except EOFError:  # the parent ended
            return
        if job is None:
            return
        i, config = job
        answer: tuple[Any, dict[Any, Any] | None, str | None]
        try:
            answer = (i, run(config), None)
        except Exception as exc:  # noqa: BLE001  (said by the parent, one line)
            answer = (i, None, f"{type(exc).__name__}: {exc}".splitlines()[0])
        pickle.dump(answer, stdout)
        stdout.flush()


class Runs:
    """run() of each config in up to ``jobs`` child processes (started here, at once)."""

    def __init__(self, configs: Sequence[Config], jobs: int) -> None:
        self.configs = list(configs)
        self.started = time.monotonic()
        self.done = 0  # runs finished (results() counts them; another thread may read it)
        self._cancelled = threading.Event()
        self._told: set[Any] = set()  # the children told "no more" (they return on their own)
        env = _child_env()
        self.processes: list[subprocess.Popen[bytes]] = []  # the children, for cancel() and for a caller's check
        for _ in range(max(1, min(jobs, len(self.configs)))):
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", __name__],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,  # nothing reaches the app's terminal
                    env=env,
                    start_new_session=True,  # the terminal's ctrl+c, ctrl+z and resizes are the parent's
                )
            )

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Kill every child now (any thread); results() then stops without another result."""
        self._cancelled.set()
        self._kill()

    def _kill(self) -> None:
        for p in self.processes:
            if p.returncode is None:
                p.kill()

    def _send(self, p: subprocess.Popen[bytes], job: Any) -> None:
        assert p.stdin is not None  # Popen(stdin=PIPE)
        pickle.dump(job, p.stdin)
        p.stdin.flush()
        if job is None:
            self._told.add(p)

    def results(self, stop: Callable[[], bool] = lambda: False) -> Iterator[tuple[int, dict[Any, Any]]]:
        """(index, summary) as each run finishes; the largest d_k first (the longest runs), so the
        processes end together. Ends early, the children killed, on cancel() or when stop() is true."""
        todo = sorted(range(len(self.configs)), key=lambda i: self.configs[i].d_k)  # pop(): largest first
        busy, sel = 0, selectors.DefaultSelector()
        try:
            for p in self.processes:
                i = todo.pop()
                self._send(p, (i, self.configs[i]))
                assert p.stdout is not None  # Popen(stdout=PIPE)
                sel.register(p.stdout, selectors.EVENT_READ, p)
                busy += 1
            while busy and not self.cancelled:
                if stop():
                    self.cancel()
                    return
                for key, _ in sel.select(POLL):
                    p = key.data
                    i, summary, err = pickle.load(p.stdout)
                    self.done += 1
                    if err:
                        raise RuntimeError(f"training run {i} ({self.configs[i]}): {err}")
                    if todo:
                        j = todo.pop()
                        self._send(p, (j, self.configs[j]))
                    else:
                        self._send(p, None)
                        sel.unregister(p.stdout)
                        busy -= 1
                    yield i, summary
        except (EOFError, OSError, pickle.UnpicklingError):  # a pipe to a child that was killed or died
            if not self.cancelled:
                raise RuntimeError("a training run's process ended before its run did") from None
        finally:
            sel.close()
            self.close()

    def close(self) -> None:
        """Let the children told "no more" return, kill the rest, wait for each (no zombie left)."""
        for p in self.processes:
            if p in self._told and not self.cancelled:
                try:
                    p.wait(QUIT)
                except subprocess.TimeoutExpired:
                    pass
        self._kill()
        for p in self.processes:
            p.wait()
            for f in (p.stdin, p.stdout):
                assert f is not None  # Popen(stdin=PIPE, stdout=PIPE)
                try:
                    f.close()
                except OSError:  # a broken pipe's unflushed bytes
                    pass


def run_all(configs: Sequence[Config], jobs: int = 1) -> list[dict[Any, Any]]:
    """[run(config) for config in configs], in up to ``jobs`` processes (in this one when 1)."""
    configs = list(configs)
    if jobs <= 1 or len(configs) <= 1:
        return [run(c) for c in configs]
    out: list[Any] = [None] * len(configs)
    runs = Runs(configs, jobs)
    try:
        for i, summary in runs.results():
            out[i] = summary
    finally:
        runs.close()
    return out


if __name__ == "__main__":
    serve()

"""Checked writes of the command line's output (report, train, --help, --version).

A write that does not complete must not look finished: ``report --json > file`` on a full disk
wrote 64 KiB of 47 MB and exited 0, ``> /dev/full`` and a closed pipe ended in a traceback at exit.
:func:`emit` writes every byte (a short write is retried, ENOSPC and EPIPE raise) and flushes;
:func:`fail` says what went wrong in one line on stderr and points stdout at /dev/null, as Python's
documentation advises for SIGPIPE, so that the interpreter's exit-time flush raises nothing.
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import contextmanager

EXIT_OUTPUT = 1  # the output is incomplete (2 stays "bad input")


class OutputError(Exception):
    """The output could not be written in full; str() is the one-line reason."""


def _reason(exc: OSError) -> str:
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        return "the reader of standard output went away (a closed pipe)"
    return exc.strerror or str(exc)


def _stdout():
    if sys.stdout is None:  # started with fd 1 closed (`attn-tui report >&-`)
        raise OutputError("standard output is closed")
    return sys.stdout


def _write_all(fd: int, data: bytes) -> None:
    """Every byte of ``data`` to ``fd``: os.write may write fewer (a full disk writes what fits,
    then fails); a write of 0 bytes is a failure, not a loop."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]


def emit(text: str) -> None:
    """Write ``text`` to standard output in full and flush it, or raise OutputError."""
    out = _stdout()
    try:
        out.flush()  # what was printed before goes first
        try:
            fd = out.fileno()
        except (OSError, ValueError, AttributeError):  # a stand-in stdout (a test's StringIO)
            out.write(text)
            out.flush()
            return
        _write_all(fd, text.encode(out.encoding or "utf-8", out.errors or "strict"))
    except OSError as exc:
        raise OutputError(_reason(exc)) from None


def finish() -> None:
    """Flush what argparse printed (--help, --version); OutputError if it could not be written."""
    try:
        _stdout().flush()
    except OSError as exc:
        raise OutputError(_reason(exc)) from None


def say(line: str) -> None:
    """One line on stderr, or nothing when stderr is closed or cannot be written (the exit status
    still says what happened). print(file=sys.stderr) with fd 2 closed wrote to stdout (file=None),
    into the data a pipe reads; with ``2>/dev/full`` it raised, and bad input exited 1, not 2."""
    err = sys.stderr
    if err is None:
        return
    try:
        print(line, file=err, flush=True)
    except (OSError, ValueError):
        pass


CLEAR = "\r\x1b[K"  # back to the line's start, erase it: a progress line gives way


def interrupted() -> None:
    """Ctrl-C's one line, on a line of its own on a terminal: the terminal flushes what was on its way
    when it sends SIGINT, so the progress line's own clearing may never arrive; this line clears it too."""
    err = sys.stderr
    try:
        clear = CLEAR if err is not None and err.isatty() else ""
    except ValueError:
        clear = ""
    say(f"{clear}attn-tui: interrupted (Ctrl-C); nothing was printed")


@contextmanager
def progress_line(what: str):
    """A ``progress(done, total)`` that rewrites one line on a terminal's stderr ("WHAT: 3 of 8 (Ctrl-C
    stops)"), or None when stderr is not a terminal (a pipe or a log gets only the outcome); the line
    is cleared when the work ends, however it ends (Ctrl-C: main's one line starts on a clean line)."""
    err = sys.stderr
    try:
        live = err is not None and err.isatty()
    except ValueError:  # closed
        live = False
    if not live:
        yield None
        return
    shown = []

    def progress(done: int, total: int) -> None:
        _to_terminal(err, f"\r{what}: {done:,} of {total:,} (Ctrl-C stops)")
        shown.append(True)

    try:
        yield progress
    finally:
        if shown:
            _to_terminal(err, CLEAR)


def _to_terminal(err, text: str) -> None:
    try:
        err.write(text)
        err.flush()
    except (OSError, ValueError):  # the terminal went away: the work goes on, the outcome says the rest
        pass


def fail(exc: OutputError) -> int:
    """One line on stderr, stdout silenced for the exit-time flush; the exit status."""
    say(f"attn-tui: output incomplete: {exc}")
    silence_stdout()
    return EXIT_OUTPUT


def silence_stdout() -> None:
    """Point fd 1 at /dev/null (Python's SIGPIPE advice): the exit-time flush then succeeds."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass

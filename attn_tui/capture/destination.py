"""Where a capture is written. Judged before the model loads: an existing file is replaced only
with --force, a folder that cannot take a new file (missing, read-only, not ours) is refused in
one line. The layers go into a hidden partial file beside ``out`` as the forward pass gives them;
it takes ``out``'s name only once complete and checked, and any failure (a full disk, Ctrl-C, a
refused check, SIGTERM or SIGHUP: `timeout`, a closed terminal) removes it: no partial file is left
under ``out``'s name or beside it. Only SIGKILL cannot be caught: the partial's name holds the
process id, and the next capture to the same file removes a partial whose process is gone.
Imports neither torch nor transformers: capture_cli judges ``out`` (refusal) before loading them."""

from __future__ import annotations

import errno
import os
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.limits import printable

if TYPE_CHECKING:
    from typing import Any, Literal

CAUGHT = (signal.SIGTERM, signal.SIGHUP)  # Ctrl-C (SIGINT) is Python's KeyboardInterrupt already
PARTIAL = ".partial.safetensors"


class Signalled(BaseException):
    """SIGTERM or SIGHUP arrived while the capture wrote: the partial file is removed on the way out
    (Destination.__exit__) and the command exits 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum: Any, _frame: Any) -> None:
    raise Signalled(signum)


def remove_stale(out: Path) -> list[Path]:
    """Remove the partial files of earlier captures to ``out`` whose process is gone (SIGKILL, a
    power cut): ``.NAME.PID.xxxx.partial.safetensors`` of this user, PID no longer running."""
    gone = []
    for p in out.parent.glob(f".{out.name}.*{PARTIAL}"):
        pid = p.name[len(out.name) + 2 :].split(".", 1)[0]
        try:
            if not pid.isdigit() or p.lstat().st_uid != os.getuid() or _alive(int(pid)):
                continue
            p.unlink()
            gone.append(p)
        except OSError:
            continue
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WriteError(Exception):
    """The file could not be written in full (a full disk, an I/O error); str(): one line."""


def refusal(out: Path, force: bool, opening: bool) -> str | None:
    """Why ``out`` cannot be written (a folder, no folder, a file already there without --force, a name
    the filesystem refuses: too long), or None."""
    try:
        return _refusal(out, force, opening)
    except OSError as exc:  # ENAMETOOLONG from stat (a review's 300-character name was a traceback)
        return f"--out {printable(str(out))[:80]}: cannot be written ({exc.strerror or exc})"


def _refusal(out: Path, force: bool, opening: bool) -> str | None:
    if out.is_dir():
        return f"--out {out}: is a folder; give a file name"
    if not out.parent.is_dir():
        return f"--out {out}: the folder {out.parent} does not exist"
    if (out.exists() or out.is_symlink()) and not force:
        hint = f"; to open it as it is: attn-tui --scenario {out}" if opening else ""
        return f"--out {out}: exists; give --force to replace it, or another --out{hint}"
    return None


class Destination:
    """``with Destination(out, force) as tmp:`` write to ``tmp``, then ``commit()``; leaving the block
    without commit removes ``tmp``. ValueError (exit 2) when ``out`` cannot be written at all."""

    def __init__(self, out: Any, force: bool = False, opening: bool = False) -> None:
        self.out, self.force = Path(out), force
        problem = refusal(self.out, force, opening)
        if problem:
            raise ValueError(problem)
        self.tmp: str | None = None
        self._handlers: dict[Any, Any] = {}

    def __enter__(self) -> str:
        remove_stale(self.out)
        try:  # before the partial file exists: no moment when a signal would leave it behind
            self._handlers = {sig: signal.signal(sig, _raise) for sig in CAUGHT}
        except ValueError:  # not the main thread: signals stay as they were
            self._handlers = {}
        try:
            fd, self.tmp = tempfile.mkstemp(
                prefix=f".{self.out.name}.{os.getpid()}.", suffix=PARTIAL, dir=self.out.parent
            )
        except OSError as exc:  # read-only file system, no permission, no room for even a name
            self._restore()
            raise ValueError(f"--out {self.out}: cannot write in {self.out.parent} ({exc.strerror})") from None
        except BaseException:
            self._restore()
            raise
        os.close(fd)
        return self.tmp

    def _restore(self) -> None:
        for sig, handler in self._handlers.items():
            signal.signal(sig, handler)
        self._handlers = {}

    def commit(self) -> Path:
        """``tmp`` under ``out``'s name, with a new file's usual mode (not mkstemp's 0600). Without
        --force a file that appeared meanwhile is not replaced (a hard link fails on it)."""
        tmp = self.tmp
        assert tmp is not None  # commit follows a reserve that made the partial file
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        if self.force:
            os.replace(tmp, self.out)
        else:
            try:
                os.link(tmp, self.out)
            except FileExistsError:
                raise ValueError(refusal(self.out, False, False)) from None
            except OSError as exc:  # a file system without hard links: the check just made stands
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                    raise
                os.replace(tmp, self.out)
            Path(tmp).unlink(missing_ok=True)
        self.tmp = None
        return self.out

    def write_error(self, exc: OSError) -> WriteError:
        return WriteError(f"--out {self.out}: cannot write ({exc.strerror or exc}); no file written")

    def __exit__(self, *exc: object) -> Literal[False]:
        try:
            if self.tmp is not None:
                Path(self.tmp).unlink(missing_ok=True)
        finally:
            self._restore()
        return False

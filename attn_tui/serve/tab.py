"""One served tab's explorer: ``python -m attn_tui.serve.tab ROOT SERVER_PID [explorer options]``.

attn-tui serve runs this per browser tab (``exec``'d by the shell textual-serve starts, so the
server is its parent). Before the explorer starts it
- dies with the server: a ``kill -9`` of the server left every tab's explorer running (> 65 s);
  on Linux prctl(PR_SET_PDEATHSIG), elsewhere a thread watching the parent;
- keeps files below ROOT: ATTN_TUI_ROOT for the file doors (attn_tui/tui/served_root.py), and the
  current folder is ROOT, so a relative path in a dialog means one below it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

from ..tui.served_root import ROOT_ENV

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """SIGKILL when ``parent`` exits (the tab has nothing to save; its browser is gone with it)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the server died before prctl: nothing will signal us
        os._exit(1)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)  # a poll interval: an orphan is re-parented and getppid changes
    os._exit(1)


def main(argv: list[str]) -> int:
    root, parent, rest = argv[0], int(argv[1]), argv[2:]
    die_with_parent(parent)
    os.environ[ROOT_ENV] = root
    os.chdir(root)
    from ..cli import main as explorer

    return explorer(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

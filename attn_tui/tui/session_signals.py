"""The explorer's signal handlers, installed by the app in a real terminal: SIGHUP, SIGTERM, SIGQUIT
and SIGINT keep the session (the app's SessionKeeper, tui/session.py) and exit through Textual's own
shutdown; a resume after SIGTSTP/``fg`` repaints the whole screen at once.

They run on the event loop (``loop.add_signal_handler``): the session is written first, then ``app.exit``
with 128 + the signal's number, so Textual leaves the alternate screen, shows the cursor and resets the
mouse and keyboard modes as on any exit.
"""

from __future__ import annotations

import asyncio
import signal

SIGNALS = ("SIGHUP", "SIGTERM", "SIGQUIT", "SIGINT")


def install_signals(app) -> None:
    """SIGHUP, SIGTERM, SIGQUIT, SIGINT: keep the session, then exit 128 + the signal through Textual's
    own shutdown (the terminal left as found). SIGCONT (after SIGTSTP, `fg`): repaint at once."""
    loop = asyncio.get_running_loop()
    for name in SIGNALS:
        sig = getattr(signal, name, None)
        try:
            if sig is not None:
                loop.add_signal_handler(sig, _on_signal, app, sig)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows' loop; not the main thread
            return
    app.app_resume_signal.subscribe(app, _repaint)


def _on_signal(app, sig: int) -> None:
    name = signal.Signals(sig).name
    keeper = getattr(app, "session", None)
    if keeper is not None:
        keeper.keep(app, name)
    app.exit(return_code=128 + sig)


def _repaint(app) -> None:
    app.refresh(layout=True)
    app.screen.refresh(layout=True)

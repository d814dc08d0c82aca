"""`attn-tui serve`: the explorer in a browser, through textual-serve.

textual-serve answers each browser tab's websocket by running a command in a new process
(``python -m attn_tui.serve.tab ROOT PID --scenario ...``), so every tab has its own explorer, its
own State and its own undo. textual-serve itself checks nothing, and loopback is not enough: any
page the user visits can open a websocket to 127.0.0.1. So the server (attn_tui/serve/server.py)
takes a websocket only from its own origin and with its token (printed in the URL to open), caps
the sessions, ends silent ones, and every tab reads and writes files only below ``--root``.

textual-serve is imported only here (serve/server.py), and only when serving, so ``report`` never
loads it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..core.builtins import BUILTINS
from ..core.numparse import parse_int
from .args import HEADS_HELP, SCENARIO_HELP

if TYPE_CHECKING:
    from typing import Any


NAME = "serve"

LOOPBACK = "127.0.0.1"
EXPOSURE = (
    "Whoever has the printed URL (its token) and reaches HOST:PORT gets an explorer that reads and writes "
    "files as you below --root. Only a loopback host (the default) keeps it to this machine; for a remote "
    "class use an SSH tunnel (ssh -L 8000:localhost:8000 host) instead of another host"
)
NO_TOKEN = (
    "no token asked; anyone who reaches HOST:PORT from a page of this server's origin gets an "
    "explorer that reads and writes files as you below --root (only on a network you trust)"
)


def _whole(text: str, lo: int | None = None, hi: int | None = None) -> int:
    """ASCII digits only, as every number field (int() would read '８０８０' as 8080)."""
    try:
        return parse_int(text, "n", lo, hi)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("n: ")) from None


def _port(text: str) -> int:
    return _whole(text, 1, 65535)


def _positive(text: str) -> int:
    n = _whole(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is below 1")
    return n


def _folder(text: str) -> str:
    p = Path(text).expanduser()
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return str(p.resolve())


def _public_url(text: str) -> str:
    from ..serve.guard import origin_key

    if origin_key(text) is None or urlsplit(text).path not in ("", "/"):
        raise argparse.ArgumentTypeError(f"{text!r} is not http(s)://HOST[:PORT]")
    return text.rstrip("/")


_port.__name__ = "port"  # argparse names the option in its message
_public_url.__name__ = "URL"
_positive.__name__ = "number"
_folder.__name__ = "folder"


def add_parser(sub) -> None:
    sub.add_parser(
        NAME,
        help="serve the explorer to web browsers (textual-serve), one explorer per tab",
        description="Serve the explorer over HTTP: open the URL it prints (http://HOST:PORT/?token=...) in a "
        "browser; each tab gets its own explorer. Websockets are taken only from the server's own origin and "
        "with its token. " + EXPOSURE + ".",
        fill=_arguments,  # serve/guard.py: imported when `serve` is parsed
    )


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--host", default=LOOPBACK, help=f"address to listen on (default {LOOPBACK}, this machine only)")
    s.add_argument("--port", type=_port, default=8000, help="TCP port, 1..65535 (default %(default)s)")
    s.add_argument(
        "--scenario",
        dest="serve_scenario",
        metavar="NAME|FILE",
        help=f"{SCENARIO_HELP}; or {HEADS_HELP} (its heads: > and < move)",
    )
    s.add_argument(
        "--theme", dest="serve_theme", metavar="NAME", help="a Textual theme for every tab, e.g. textual-light"
    )
    s.add_argument(
        "--public-url",
        type=_public_url,
        metavar="URL",
        help="the address browsers use to reach the server, when it is not http://HOST:PORT "
        "(behind a proxy; for 0.0.0.0 the default is this machine's name); its origin is also accepted",
    )
    _limits(s)


def _limits(s: argparse.ArgumentParser) -> None:
    from ..serve.guard import default_max_sessions

    s.add_argument(
        "--root",
        type=_folder,
        default=".",
        metavar="DIR",
        help="the folder every tab's open, save, export and screenshot stay below (default: the current folder)",
    )
    s.add_argument("--no-token", action="store_true", help=NO_TOKEN)
    s.add_argument(
        "--max-sessions",
        type=_positive,
        default=default_max_sessions(),
        metavar="N",
        help="tabs open at once; more are refused (default %(default)s: half this machine's memory at 130 MiB each)",
    )
    s.add_argument(
        "--idle-timeout",
        type=_positive,
        default=3600,
        metavar="SECONDS",
        help="a tab that sends nothing (no key, no mouse) this long is ended (default %(default)s)",
    )


def command(scenario: str | None, theme: str | None, root: str = ".", parent: int | None = None) -> str:
    """The shell command textual-serve runs per browser tab: this Python, this package's tab entry
    (serve/tab.py: dies with the server ``parent``, files below ``root``), ``exec``'d so that the server
    is its parent."""
    from ..core.heads.demo import HEAD_BUILTINS

    argv = [sys.executable, "-m", "attn_tui.serve.tab", str(Path(root).resolve()), str(parent or os.getpid())]
    if scenario is not None:
        p = Path(scenario)
        is_file = scenario not in BUILTINS and scenario not in HEAD_BUILTINS and p.exists()  # a built-in's name wins
        argv += ["--scenario", str(p.resolve()) if is_file else scenario]  # a file from any cwd
    if theme is not None:
        argv += ["--theme", theme]
    return "exec " + shlex.join(argv)


def run(args: Any) -> int:
    """Check the scenario and the theme (one line, exit 2, before listening), then serve until Ctrl+C."""
    scenario = args.serve_scenario if args.serve_scenario is not None else args.run_scenario
    if scenario is not None:
        from .explorer import check_opens

        check_opens(scenario)  # the explorer's own doors (its sizes, multi-head sources); ScenarioError: exit 2
    theme = args.serve_theme if args.serve_theme is not None else args.theme
    if theme is not None:
        from ..tui.themes import check_theme

        check_theme(theme)
    from ..serve.guard import new_token
    from ..serve.server import GuardedServer

    if args.no_token:
        print(f"warning: --no-token: {NO_TOKEN}", file=sys.stderr)
    url = args.public_url or f"http://{_url_host(args.host)}:{args.port}"
    server = GuardedServer(
        command(scenario, theme, args.root),
        host=args.host,
        port=args.port,
        public_url=url,
        token=None if args.no_token else new_token(),
        limits=(args.max_sessions, args.idle_timeout),
    )
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the host is not ours
        raise ValueError(f"serve: cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    return 0


def _url_host(host: str) -> str:
    """The host part of the page's URLs: a wildcard address (every interface) is no address a browser
    can use, so the machine's name stands for it; an IPv6 literal goes in brackets."""
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host

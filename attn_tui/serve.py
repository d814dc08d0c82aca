"""`attn-tui serve`: the explorer in a browser, through textual-serve.

textual-serve answers each browser tab's websocket by running a command in a new process
(``python -m attn_tui --scenario ...``), so every tab has its own explorer, its own State and
its own undo. textual-serve has no authentication: anyone who can reach the port can open an
explorer (and, through it, read and write files as this user with the open/save dialogs), so
it listens on loopback unless another host is asked for. For a class on a remote machine,
keep the loopback default and tunnel: ``ssh -L 8000:localhost:8000 host``.

Kept out of cli.py (cli.py calls add_parser() and run()); textual-serve is imported only here,
and only when serving, so ``report`` never loads it.
"""

from __future__ import annotations

import argparse
import shlex
import socket
import sys
from pathlib import Path

from .core.builtins import BUILTINS

LOOPBACK = "127.0.0.1"
EXPOSURE = (
    "textual-serve has no authentication: whoever reaches HOST:PORT gets an explorer that reads and "
    "writes files as you. Only a loopback host (the default) keeps it to this machine; for a remote "
    "class use an SSH tunnel (ssh -L 8000:localhost:8000 host) instead of another host"
)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is outside 1..65535")
    return port


_port.__name__ = "port"  # argparse names the option in its message


def add_parser(sub, scenario_help: str) -> None:
    s = sub.add_parser(
        "serve",
        help="serve the explorer to web browsers (textual-serve), one explorer per tab",
        description="Serve the explorer over HTTP: open http://HOST:PORT in a browser; each tab gets its own "
        "explorer. " + EXPOSURE + ".",
    )
    s.add_argument("--host", default=LOOPBACK, help=f"address to listen on (default {LOOPBACK}, this machine only)")
    s.add_argument("--port", type=_port, default=8000, help="TCP port, 1..65535 (default %(default)s)")
    s.add_argument("--scenario", dest="serve_scenario", metavar="NAME|FILE", help=scenario_help)
    s.add_argument(
        "--theme", dest="serve_theme", metavar="NAME", help="a Textual theme for every tab, e.g. textual-light"
    )
    s.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers use to reach the server, when it is not http://HOST:PORT "
        "(behind a proxy; for 0.0.0.0 the default is this machine's name)",
    )


def command(scenario: str | None, theme: str | None) -> str:
    """The shell command textual-serve runs per browser tab: this Python, this package."""
    argv = [sys.executable, "-m", "attn_tui"]
    if scenario is not None:
        p = Path(scenario)
        is_file = scenario not in BUILTINS and p.exists()  # a built-in's name wins, as in resolve()
        argv += ["--scenario", str(p.resolve()) if is_file else scenario]  # a file from any cwd
    if theme is not None:
        argv += ["--theme", theme]
    return shlex.join(argv)


def run(args, check_scenario) -> int:
    """Check the scenario and the theme (one line, exit 2, before listening), then serve until Ctrl+C."""
    scenario = args.serve_scenario if args.serve_scenario is not None else args.run_scenario
    if scenario is not None:
        check_scenario(scenario)  # ScenarioError -> cli.main: one line, exit 2
    theme = args.serve_theme if args.serve_theme is not None else args.theme
    if theme is not None:
        from .tui.themes import check_theme

        check_theme(theme)
    from textual_serve.server import Server

    url = args.public_url or f"http://{_url_host(args.host)}:{args.port}"
    server = Server(command(scenario, theme), host=args.host, port=args.port, title="attn-tui", public_url=url)
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

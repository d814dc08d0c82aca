"""What `attn-tui serve` lets in, as pure functions (no aiohttp): the origins a websocket may come
from, the per-server token, the checked form of each browser message, the session limit.

A web page the user visits can open ``ws://127.0.0.1:PORT/ws`` from its own origin (browsers apply
no same-origin policy to websocket handshakes), so loopback alone protects nothing: every handshake
must come from the server's own origin and carry the server's token (Jupyter's and code-server's
answer). attn_tui/serve/server.py applies these before any explorer process starts.
"""

from __future__ import annotations

import hmac
import json
import os
import re
import secrets
import socket
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
DEFAULT_PORTS = {"http": 80, "https": 443}

MAX_COLS, MAX_ROWS = 500, 200  # a 4K screen at a 10 px font; 10000 x 3000 took a tab to 343 MiB
MIN_COLS, MIN_ROWS = 10, 4
MAX_STDIN = 64 * 1024  # characters of one stdin message (a paste); the socket refuses > 1 MiB frames
MAX_PING = 64
TAB_MIB = 130  # one explorer's resident memory, measured at 64-130 MiB (docs/SERVE.md)


class BadMessage(ValueError):
    """A browser message the explorer must not see; its text is the one log line."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_ok(given: str | None, token: str) -> bool:
    """Constant-time comparison (hmac.compare_digest): no timing tells a guesser how close it is."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def origin_key(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL or Origin header, ports made explicit; None otherwise."""
    try:
        u = urlsplit(url.strip())
        port = u.port
    except ValueError:
        return None
    scheme = u.scheme.lower()
    if scheme not in DEFAULT_PORTS or not u.hostname:
        return None
    return scheme, u.hostname.lower(), port or DEFAULT_PORTS[scheme]


def allowed_origins(host: str, port: int, public_url: str | None) -> frozenset[tuple[str, str, int]]:
    """The server's own origins: the host it listens on at its port (a loopback host under each of its
    names; a wildcard host under this machine's names and loopback's), plus --public-url."""
    host = host.strip("[]").lower()
    names = {host}
    if host in LOOPBACK_NAMES:
        names |= LOOPBACK_NAMES
    if host in WILDCARDS:
        names = set(LOOPBACK_NAMES) | {socket.gethostname().lower(), socket.getfqdn().lower()}
    keys = {("http", name, port) for name in names}
    if public_url and (key := origin_key(public_url)) is not None:
        keys.add(key)
    return frozenset(keys)


def origin_refusal(origin: str | None, allowed: frozenset) -> str | None:
    """None when ``origin`` is one of the server's own: its scheme, host and port, parsed, are one of
    ``allowed``, and it holds nothing else (an Origin is scheme://host[:port]: user info such as
    ``http://evil.example@127.0.0.1:PORT``, a path, a query or a fragment is refused); else the
    one-line reason."""
    if not origin:
        return "no Origin header (a browser always sends one; other clients must send the page's)"
    bad = f"Origin {origin[:100]!r} is not this server's"
    try:
        u = urlsplit(origin.strip())
    except ValueError:
        return bad
    if "@" in u.netloc or u.path or u.query or u.fragment or "?" in origin or "#" in origin:
        return bad + " (an origin is scheme://host:port only)"
    if origin_key(origin) not in allowed:
        return bad
    return None


HOST_CHARS = re.compile(r"^[A-Za-z0-9.\-\[\]:]+$")


def host_refusal(host: str | None, allowed: frozenset) -> str | None:
    """None when a request's Host header names this server (one of its own origins' host and port);
    else the one-line reason. A DNS-rebinding page (evil.example resolving to 127.0.0.1) is same-origin
    with itself in the browser: its requests say ``Host: evil.example:PORT``, refused here on every
    route. The Host carries no scheme: a port-less one stands for 80 or 443 (a proxy's --public-url)."""
    if not host:
        return "no Host header"
    bad = f"Host {host[:100]!r} is not this server's"
    if not HOST_CHARS.match(host):
        return bad
    try:
        u = urlsplit("//" + host)
        name, port = u.hostname, u.port
    except ValueError:
        return bad
    ports = {port} if port is not None else set(DEFAULT_PORTS.values())
    if not name or not any((name.lower(), p) in {(h, q) for _, h, q in allowed} for p in ports):
        return bad
    return None


def _size(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadMessage(f"resize: {name} {str(value)[:40]!r} is not a whole number")
    if value < 1:
        raise BadMessage(f"resize: {name} {value} is below 1")
    return min(max(value, low), high)


def clamp_size(width: int, height: int) -> tuple[int, int]:
    """A size within MIN..MAX (the first one comes from the URL's query: any number is clamped)."""
    return min(max(width, MIN_COLS), MAX_COLS), min(max(height, MIN_ROWS), MAX_ROWS)


def parse_message(text: str) -> tuple:
    """One websocket text message -> ("stdin", str) | ("resize", w, h) | ("ping", str) | ("focus",)
    | ("blur",), sizes clamped to MIN..MAX; BadMessage (one line) for anything else."""
    try:
        envelope = json.loads(text)
    except ValueError:
        raise BadMessage("not JSON") from None
    except RecursionError:  # '[' * 100000: the parser's depth, not the session's end
        raise BadMessage("JSON nested too deeply") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise BadMessage("not a [type, data] list")
    kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
    if kind in ("focus", "blur"):
        return (kind,)
    if kind == "stdin" and isinstance(data, str) and len(data) <= MAX_STDIN:
        return kind, data
    if kind == "ping" and isinstance(data, str) and len(data) <= MAX_PING:
        return kind, data
    if kind == "resize" and isinstance(data, dict):
        return (
            kind,
            _size(data.get("width"), "width", MIN_COLS, MAX_COLS),
            _size(data.get("height"), "height", MIN_ROWS, MAX_ROWS),
        )
    if kind in ("stdin", "ping", "resize"):
        raise BadMessage(f"{kind}: malformed data ({type(data).__name__})")
    raise BadMessage(f"unknown message type {kind[:40]!r}")


def default_max_sessions() -> int:
    """Half this machine's memory in explorers of TAB_MIB each, at least 1 and at most 256."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8
    return max(1, min(256, total // 2 // (TAB_MIB * 2**20)))

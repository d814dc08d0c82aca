"""textual-serve's Server with the doors a class server needs (issue 33): the websocket only from
the server's own origin and with its token, the page only with the token, a bounded number of
sessions, each tab's process ended when its socket closes or stays silent, browser messages
checked (attn_tui/serve/guard.py) before the explorer sees them, and one log line per refusal.

The adapter to textual-serve: it overrides Server's route handlers and reads AppService's process
(``_process``, the one private name: textual-serve gives no public handle to kill a hung tab).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import aiohttp_jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from . import page
from .guard import (
    BadMessage,
    allowed_origins,
    clamp_size,
    host_refusal,
    origin_key,
    origin_refusal,
    parse_message,
    token_ok,
)

log = logging.getLogger("attn-tui.serve")
HEARTBEAT = 15.0  # s between protocol pings: a socket whose browser vanished closes after ~1.5 of them
STOP_WAIT = 10.0  # s a tab gets to quit when asked before it is killed
MAX_BAD = 50  # malformed messages a session may send before it is closed


def _logged_path(request: web.Request) -> str:
    """The path for a log line, a route's secret segments named, not written: /ws/{token},
    /download/{key} (the log is read by whoever runs the server, but tokens belong in no log)."""
    resource = request.match_info.route.resource
    if isinstance(resource, web.DynamicResource):
        return resource.canonical
    return request.path


def _malformed_in_one_line(record: logging.LogRecord) -> bool:
    """A request aiohttp cannot parse (a Host header given twice, a bad header line) is one line in the
    log, as every refusal here is: aiohttp logged "Error handling request" with its parser's traceback,
    on every such request. Any other exception keeps its traceback (a fault of ours)."""
    exc = record.exc_info[1] if record.exc_info else None
    if isinstance(exc, HttpProcessingError):
        why = " ".join(str(exc.message).split())[:200]
        said = record.getMessage()  # "Error handling request from 127.0.0.1"
        peer = said.split(" from ", 1)[1] if " from " in said else "a client"
        record.msg, record.args = f"refused a malformed request from {peer} ({exc.code}): {why}", ()
        record.exc_info = record.exc_text = None
    return True


class GuardedServer(Server):
    def __init__(self, command: str, *, host: str, port: int, public_url: str, token: str | None, limits) -> None:
        super().__init__(command, host=host, port=port, title="attn-tui", public_url=public_url)
        self.token = token  # None: --no-token
        self.origins = allowed_origins(host, port, public_url)
        self.max_sessions, self.idle_timeout = limits
        self.sessions: dict[object, web.WebSocketResponse] = {}  # the live ones, counted against the limit
        self.stopping = False

    def initialize_logging(self) -> None:
        """One plain line per event (textual-serve's handler printed tracebacks with locals)."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s attn-tui serve: %(message)s", "%H:%M:%S"))
        handler.addFilter(_malformed_in_one_line)
        logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
        logging.getLogger("asyncio").setLevel(logging.ERROR)  # "Unknown child process" as the loop closes

    async def on_startup(self, app: web.Application) -> None:
        """Nothing yet: the URL is printed once the port listens (serve), so it can be used at once."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Ctrl+C: close every tab's socket now, so each handler ends its explorer (aiohttp waited
        shutdown_timeout for them first)."""
        self.stopping = True
        live = [ws.close(code=WSCloseCode.GOING_AWAY) for ws in self.sessions.values() if ws.prepared]
        await asyncio.gather(*live, return_exceptions=True)

    def serve(self, debug: bool = False) -> None:
        """textual-serve's serve(), printing the URL to open after the socket is bound (aiohttp's
        run_app calls ``print`` then; textual-serve printed it at startup, before binding)."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.request_exit)
        line = f"attn-tui serve: open {self.start_url()}  (Ctrl+C to stop)"
        web.run_app(
            self._make_app(),
            host=self.host,
            port=self.port,
            handle_signals=False,
            loop=loop,
            print=lambda *_: print(line, flush=True),
            shutdown_timeout=STOP_WAIT,
        )

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        # The page's socket: the token in the path, as textual-serve's JS appends "?width=...&height=..."
        # to the page's websocket URL with a bare "?" (a query token would become "token=T?width=80").
        app.router.add_get("/ws/{token}", self.handle_websocket, name="websocket-token")
        app.middlewares.append(self._host_guard)
        return app

    @web.middleware
    async def _host_guard(self, request: web.Request, handler) -> web.StreamResponse:
        """Every route (page, websocket, downloads, static files) only under the server's own names:
        a DNS-rebinding page's requests (Host: evil.example:PORT) are refused before any handler."""
        if reason := host_refusal(request.headers.get("Host"), self.origins):
            return self._refuse(request, 421, reason)
        return await handler(request)

    def start_url(self) -> str:
        return f"{self.public_url.rstrip('/')}/" + (f"?token={self.token}" if self.token else "")

    # -- the doors ------------------------------------------------------------------------
    def _has_token(self, request: web.Request) -> bool:
        """The token in the URL: the page's query (``/?token=``, the printed URL; a reload keeps it),
        the page's websocket path (``/ws/<token>``) or a non-browser client's ``/ws?token=``. Never a
        cookie: cookies ignore ports, so one would reach any server another user runs on another port
        of this host the browser visits, and carry the token there."""
        if self.token is None:
            return True
        given = request.match_info.get("token", request.query.get("token"))
        return token_ok(given, self.token)

    def _refuse(self, request: web.Request, status: int, reason: str) -> web.Response:
        log.warning("refused %s %s from %s: %s", request.method, _logged_path(request), request.remote, reason)
        return web.Response(status=status, text=f"{status}: {reason}\n")

    def _ws_refusal(self, request: web.Request) -> tuple[int, str] | None:
        if reason := origin_refusal(request.headers.get("Origin"), self.origins):
            return 403, reason
        if not self._has_token(request):
            return 403, "no token (open the URL attn-tui serve printed)"
        if len(self.sessions) >= self.max_sessions:
            return 503, f"{self.max_sessions} sessions are open, the limit (--max-sessions)"
        return None

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if not self._has_token(request):
            return self._refuse(request, 403, "no token: open the URL attn-tui serve printed (it ends in ?token=...)")
        response = aiohttp_jinja2.render_template("app_index.html", request, self._page(request))
        assert response.text is not None  # render_template's response is the page's text
        response.text = page.fixed(response.text)  # the terminal fills the window and takes the keys
        response.headers["Referrer-Policy"] = "no-referrer"  # the URL's token stays on this server
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"  # no page frames it (clickjacking)
        response.headers["X-Frame-Options"] = "DENY"
        return response

    def _page(self, request: web.Request) -> dict:
        """The page's URLs on the host the browser used when it is one of ours (http://localhost:8000
        through a tunnel), else on --public-url. Its websocket URL carries the token in its path
        (/ws/<token>): the page holds the token already (its own URL), and no cookie is set."""
        base = f"http://{request.host}"
        if host_refusal(request.host, self.origins) or origin_key(base) not in self.origins:
            base = self.public_url.rstrip("/")
        ws = ("wss:" if base.startswith("https:") else "ws:") + base.split(":", 1)[1] + "/ws"
        if self.token is not None:
            ws += f"/{self.token}"  # token_urlsafe: only [A-Za-z0-9_-], nothing to quote
        return {
            "font_size": min(max(to_int(request.query.get("fontsize", "16"), 16), 6), 64),
            "app_websocket_url": ws,
            "config": {"static": {"url": base + "/static/"}},
            "application": {"name": self.title},
        }

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """A download by its key alone, as textual-serve serves it (an unknown key: 404). The page's JS
        opens /download/<key> with window.open and cannot add the token (no cookie carries it any
        more). The key is Textual's uuid4().hex, 122 random bits, sent only over the tab's own
        websocket (which needed the token and this server's Origin) and forgotten once the file is
        delivered: knowing it is as good a proof as the token."""
        return await super().handle_download(request)

    # -- a session ---------------------------------------------------------------------
    # A refusal is a plain response, not the WebSocketResponse textual-serve's own handler returns.
    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        if refusal := self._ws_refusal(request):
            return self._refuse(request, *refusal)
        session = object()
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=2**20)
        self.sessions[session] = websocket  # before any await: two handshakes cannot both take the last place
        width, height = clamp_size(
            to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
        )
        service, why = None, None
        try:
            await websocket.prepare(request)
            service = AppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,  # type: ignore[arg-type]  # awaited, its bool result unread
                download_manager=self.download_manager,
            )
            await service.start(width, height)
            log.info("session opened for %s (%d of %d)", request.remote, len(self.sessions), self.max_sessions)
            watch = asyncio.create_task(self._close_when_exited(service, websocket))
            try:
                why = await self._relay(websocket, service, request.remote)
            finally:
                watch.cancel()
        except Exception as exc:  # one line, never a traceback with locals
            log.warning("session for %s ended: %s: %s", request.remote, type(exc).__name__, exc)
        finally:
            if service is not None:
                await self._end(service)
            self.sessions.pop(session, None)
            if websocket.prepared:
                await websocket.close()
            if why is not None:  # logged once its place is free: a reader of the log may open another at once
                log.info("session closed for %s: %s", request.remote, why)
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, service: AppService, peer) -> str:
        """Browser -> explorer, each message checked; returns why the session ends."""
        bad = 0
        while True:
            try:
                msg = await websocket.receive(timeout=self.idle_timeout)
            except TimeoutError:
                return f"silent for {self.idle_timeout:g} s (--idle-timeout)"
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                if msg.type == WSMsgType.ERROR:
                    return f"socket error {msg.data}"
                return "the server stopped" if self.stopping else "the tab closed"
            try:
                if msg.type != WSMsgType.TEXT:
                    raise BadMessage(f"a {msg.type.name} message")
                await self._forward(websocket, service, parse_message(msg.data))
            except BadMessage as exc:
                bad += 1
                log.warning("ignored a message from %s: %s", peer, exc)
                if bad >= MAX_BAD:
                    return f"{MAX_BAD} malformed messages"

    async def _forward(self, websocket: web.WebSocketResponse, service: AppService, message: tuple) -> None:
        kind = message[0]
        if kind == "stdin":
            await service.send_bytes(message[1].encode("utf-8", "replace"))
        elif kind == "resize":
            await service.set_terminal_size(message[1], message[2])
        elif kind == "ping":
            await websocket.send_json(["pong", message[1]])
        elif kind == "focus":
            await service.focus()
        else:
            await service.blur()

    async def _close_when_exited(self, service: AppService, websocket: web.WebSocketResponse) -> None:
        """A tab whose explorer died (not by quitting, which closes the socket itself) closes too."""
        process = service._process
        if process is not None:
            await process.wait()
            await websocket.close()

    async def _end(self, service: AppService) -> None:
        """Ask the tab to quit; after STOP_WAIT, kill it. Either way the process is reaped."""
        process = service._process
        try:
            await asyncio.wait_for(service.stop(), STOP_WAIT)
        except Exception as exc:  # TimeoutError: a hung tab
            log.warning("a tab did not quit (%s): killed", type(exc).__name__)
        if process is None:
            return
        if process.returncode is None:
            process.kill()
        try:
            await asyncio.wait_for(process.wait(), STOP_WAIT)
        except TimeoutError:  # SIGKILL not yet delivered: the child watcher reaps it when it is
            log.warning("tab %s not yet reaped after SIGKILL", process.pid)

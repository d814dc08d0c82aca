"""`attn-tui serve`'s doors (issue 33, issue 34 item 11), against the real server in a subprocess:
a handshake from another origin or without the token is refused (403) before any explorer process
starts; the token reaches the websocket as a browser's does (in the path of the page's websocket
URL; no cookie, which would reach other ports of the host);
sessions past --max-sessions are refused; a closed or silent tab's process is reaped; malformed
browser messages are dropped with one log line and sizes are bounded; tabs die with the server."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time

import aiohttp
import pytest
from aiohttp import web

from tests.tui.serving import served, wait_ended
from tests.tui.test_serve import ANSI, expected_cells

CELLS = expected_cells("lesson-pipeline")
BOUND = 90.0  # s: every wait below polls state or events and fails past this


def run(coro, seconds: float = BOUND + 30):
    return asyncio.run(asyncio.wait_for(coro, seconds))


async def handshake_status(url: str, headers: dict, session=None) -> int:
    """101 when the server takes the websocket, else the HTTP status it refused it with."""
    own = session is None
    session = session or aiohttp.ClientSession()
    try:
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.close()
            return 101
    except aiohttp.WSServerHandshakeError as exc:
        return exc.status
    finally:
        if own:
            await session.close()


async def read_until(ws, want: set[str], deadline: float) -> str:
    """The explorer's output (escapes removed) until every string of ``want`` has arrived."""
    seen = ""
    while not all(w in seen for w in want) and time.monotonic() < deadline:
        try:
            msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            break
        if msg.type == aiohttp.WSMsgType.BINARY:
            seen += ANSI.sub("", msg.data.decode("utf-8", "replace"))
        elif msg.type != aiohttp.WSMsgType.TEXT:
            break
    return seen


def test_cross_origin_handshake_refused_before_a_process_starts():
    """Even with the token: another site, another port of this host, a sandboxed page, no Origin."""
    with served() as s:
        for origin in ("http://evil.example", f"http://127.0.0.1:{s.port + 1}", "null", f"https://127.0.0.1:{s.port}"):
            assert run(handshake_status(s.ws_url(), {"Origin": origin})) == 403, origin
            s.wait_output(f"refused GET /ws from 127.0.0.1: Origin '{origin}' is not this server's")
        assert run(handshake_status(s.ws_url(), {})) == 403
        s.wait_output("refused GET /ws from 127.0.0.1: no Origin header")
        assert s.tabs() == []  # no explorer was started for any of them
        assert run(handshake_status(s.ws_url(), {"Origin": s.origin})) == 101  # the server's own origin: in


def test_tokenless_page_and_socket_refused():
    import urllib.error
    import urllib.request

    with served() as s:
        base = f"http://127.0.0.1:{s.port}"
        for url, code in ((f"{base}/", 403), (f"{base}/?token=wrong", 403), (f"{base}/download/some-key", 404)):
            with pytest.raises(urllib.error.HTTPError) as refused:  # a download by an unknown key: 404
                urllib.request.urlopen(url, timeout=30)
            assert refused.value.code == code, url
        plain = f"ws://127.0.0.1:{s.port}/ws?width=80&height=24"
        assert run(handshake_status(plain, {"Origin": s.origin})) == 403
        assert run(handshake_status(plain.replace("?", "?token=wrong&"), {"Origin": s.origin})) == 403
        s.wait_output("refused GET /ws from 127.0.0.1: no token")
        for wrong in ("wrong", s.token[:-1], s.token + "x"):  # the path token, as the page sends it
            wrong_url = f"ws://127.0.0.1:{s.port}/ws/{wrong}?width=80&height=24"
            assert run(handshake_status(wrong_url, {"Origin": s.origin})) == 403
        s.wait_output("refused GET /ws/{token} from 127.0.0.1: no token")
        # the right path token from another origin: the Origin check holds, and the log does not write the token
        right = f"ws://127.0.0.1:{s.port}/ws/{s.token}?width=80&height=24"
        assert run(handshake_status(right, {"Origin": f"http://127.0.0.1:{s.port + 1}"})) == 403
        assert run(handshake_status(right, {})) == 403
        s.wait_output(f"refused GET /ws/{{token}} from 127.0.0.1: Origin 'http://127.0.0.1:{s.port + 1}' is not")
        s.wait_output("refused GET /ws/{token} from 127.0.0.1: no Origin header")
        assert s.output().count(s.token) == 1  # only in the printed URL
        assert s.tabs() == []


def test_no_token_asks_none_but_still_checks_the_origin():
    import urllib.request

    with served("--no-token") as s:
        assert s.url == f"http://127.0.0.1:{s.port}/" and s.token is None
        assert "warning: --no-token: no token asked" in s.output()
        page = urllib.request.urlopen(s.url, timeout=30).read().decode()
        assert f'data-session-websocket-url="ws://127.0.0.1:{s.port}/ws"' in page
        assert run(handshake_status(s.ws_url(), {"Origin": "http://evil.example"})) == 403
        assert run(handshake_status(s.ws_url(), {"Origin": s.origin})) == 101


async def other_port_server(seen: list):
    """A server on another port of 127.0.0.1 (another local user's, say): records each request's headers."""

    async def record(request: web.Request) -> web.Response:
        seen.append(dict(request.headers))
        return web.Response(text="hello")

    app = web.Application()
    app.router.add_get("/{tail:.*}", record)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, runner.addresses[0][1]


@pytest.mark.slow
def test_printed_url_sets_no_cookie_and_its_page_socket_carries_the_token():
    """As a browser does, keeping every cookie: opening the printed URL leaves no cookie holding the token
    (cookies ignore ports: a server on another port of 127.0.0.1 would receive it, and drive an explorer
    with it); the page's own websocket URL carries the token in its path, and works end to end."""

    async def browser(s):
        jar = aiohttp.CookieJar(unsafe=True)  # unsafe: keep cookies of an IP-address host
        seen: list[dict] = []
        runner, other = await other_port_server(seen)
        try:
            async with aiohttp.ClientSession(cookie_jar=jar) as session:
                async with session.get(s.url) as page:
                    assert page.status == 200
                    headers, html = page.headers, await page.text()
                for path in ("/x", "/x"):  # a visit and a reload
                    async with session.get(f"http://127.0.0.1:{other}{path}") as r:
                        assert r.status == 200
                assert len(seen) == 2 and all(s.token not in str(h) for h in seen), seen  # failed: Cookie: ...
                assert all("Cookie" not in h for h in seen), seen
                assert [c.value for c in jar if s.token in c.value] == []  # the jar is empty of it
                assert "Set-Cookie" not in headers
                assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
                assert headers["Content-Security-Policy"] == "frame-ancestors 'none'"
                assert headers["X-Frame-Options"] == "DENY"
                async with session.get(f"http://127.0.0.1:{s.port}/") as bare:
                    assert bare.status == 403  # the page without ?token: nothing else carries it
                ws_url = re.search(r'data-session-websocket-url="([^"]+)"', html).group(1)
                assert ws_url == f"ws://127.0.0.1:{s.port}/ws/{s.token}"
                # textual-serve's JS appends "?width=" + cols + "&height=" + rows to it
                async with session.ws_connect(f"{ws_url}?width=120&height=40", headers={"Origin": s.origin}) as ws:
                    return await read_until(ws, CELLS, time.monotonic() + BOUND)
        finally:
            await runner.cleanup()

    with served() as s:
        text = run(browser(s))
        assert all(c in text for c in CELLS), sorted(c for c in CELLS if c not in text)
        s.wait_output("session opened for 127.0.0.1")


@pytest.mark.slow
def test_sessions_past_the_limit_refused_and_closed_tabs_reaped():
    async def scenario(s):
        async with aiohttp.ClientSession() as session:
            first = await session.ws_connect(s.ws_url(), headers={"Origin": s.origin})
            await read_until(first, CELLS, time.monotonic() + BOUND)
            tabs = s.tabs()
            assert len(tabs) == 1
            assert await handshake_status(s.ws_url(), {"Origin": s.origin}, session) == 503
            await first.close()  # the tab closes
            await asyncio.to_thread(wait_ended, tabs, BOUND)  # awaited on its pidfd
            assert s.tabs() == [], "the closed tab's explorer reaped"
            # the server logs the close once the place is free (a process's end comes a moment before that)
            await asyncio.to_thread(s.wait_output, "session closed for 127.0.0.1: the tab closed", BOUND)
            return await handshake_status(s.ws_url(), {"Origin": s.origin}, session)

    with served("--max-sessions", "1") as s:
        assert run(scenario(s)) == 101  # its place is free again
        s.wait_output("refused GET /ws from 127.0.0.1: 1 sessions are open, the limit")


@pytest.mark.slow
def test_a_silent_session_is_ended_and_reaped():
    async def silent(s):
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(s.ws_url(), headers={"Origin": s.origin}) as ws:
                await read_until(ws, CELLS, time.monotonic() + BOUND)
                while (await ws.receive(timeout=BOUND)).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    pass  # the explorer's last frames, then the server's close

    with served("--idle-timeout", "2") as s:
        run(silent(s))
        s.wait_output("session closed for 127.0.0.1: silent for 2 s")
        wait_ended(s.tabs(), BOUND)  # awaited on each tab's pidfd
        assert s.tabs() == [], "the silent tab's explorer reaped"


def vm_hwm_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


@pytest.mark.slow
def test_malformed_messages_are_dropped_with_one_line_and_sizes_bounded():
    bad = [
        '["resize", {"width": -5, "height": 24}]',
        '["resize", {"width": "wide", "height": 24}]',
        '["stdin", 5]',
        "not json",
        '["launch", {}]',
        "[]",
    ]

    async def abuse(s):
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(s.ws_url(), headers={"Origin": s.origin}) as ws:
                await read_until(ws, CELLS, time.monotonic() + BOUND)
                for text in bad:
                    await ws.send_str(text)
                await ws.send_str('["resize", {"width": 10000, "height": 3000}]')  # clamped to 500 x 200
                await ws.send_str('["ping", "after"]')
                while (msg := await ws.receive(timeout=BOUND)).type != aiohttp.WSMsgType.TEXT:
                    assert msg.type == aiohttp.WSMsgType.BINARY, msg  # alive: the explorer still draws
                assert msg.json() == ["pong", "after"]
                (tab,) = s.tabs()
                await read_until(ws, CELLS, time.monotonic() + BOUND)  # a frame drawn after the resize
                return vm_hwm_mib(tab)

    with served() as s:
        peak = run(abuse(s))
        assert peak < 250, f"a tab peaked at {peak:.0f} MiB after a 10000 x 3000 resize (343 MiB unbounded)"
        reasons = [
            "resize: width -5 is below 1",
            "resize: width 'wide' is not a whole number",
            "not JSON",
            "stdin: malformed data (int)",
            "unknown message type 'launch'",
            "not a [type, data] list",
        ]
        for reason in reasons:
            s.wait_output(f"ignored a message from 127.0.0.1: {reason}")
        assert "Traceback" not in s.output()


def test_tabs_die_with_the_server():
    """kill -9 of the server: each tab's explorer goes too (PR_SET_PDEATHSIG), it did not before."""

    async def open_tab(s):
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(s.ws_url(), headers={"Origin": s.origin})
            await read_until(ws, CELLS, time.monotonic() + BOUND)
            (tab,) = s.tabs()
            os.kill(s.proc.pid, signal.SIGKILL)
            return tab

    with served() as s:
        tab = run(open_tab(s))
        wait_ended([tab], 30)  # the tab ended with its server (its pidfd readable: dead, reaped or not)


@pytest.mark.slow
def test_ctrl_c_ends_the_tabs_and_the_server_cleanly():
    async def open_tab(s):
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(s.ws_url(), headers={"Origin": s.origin}) as ws:
                await read_until(ws, CELLS, time.monotonic() + BOUND)
                (tab,) = s.tabs()
                s.proc.send_signal(signal.SIGINT)
                while (await ws.receive(timeout=BOUND)).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    pass  # the server closes the socket first
                return tab

    with served() as s:
        tab = run(open_tab(s))
        assert s.proc.wait(timeout=BOUND) == 0
        assert not os.path.exists(f"/proc/{tab}")  # ended and reaped by the server before it exited
        s.wait_output("session closed for 127.0.0.1: the server stopped")
        assert "Traceback" not in s.output()


@pytest.mark.long
@pytest.mark.slow
def test_a_served_save_beyond_the_root_is_refused(tmp_path):
    """The issue's attack, typed by an allowed tab: `s`, a path out of the root, enter (the dialog's
    default name is selected: typing replaces it)."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)

    async def typed(s, path: str, want: set[str]) -> str:
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(s.ws_url(), headers={"Origin": s.origin}) as ws:
                deadline = time.monotonic() + BOUND
                await read_until(ws, CELLS, deadline)
                await ws.send_json(["stdin", "s"])
                await read_until(ws, {"Save the scenario as TOML"}, deadline)  # the dialog is up
                for key in [*path, "\r"]:  # one message per key, as xterm.js sends them
                    await ws.send_json(["stdin", key])
                text = await read_until(ws, want, deadline)
                assert all(w in text for w in want), (path, text[-1500:])

    with served(cwd=root) as s:
        for path in ("../escaped.toml", str(tmp_path / "abs.toml"), "out/linked.toml"):
            run(typed(s, path, {"outside"}))  # "PATH: not saved (PATH is outside the served folder)", wrapped
        assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]  # nothing written beside the root
        run(typed(s, "kept.toml", {"saved "}))  # and the same keys below the root do save
        assert (root / "kept.toml").exists(), "kept.toml saved in the root"  # written before "saved" is said


def test_page_names_the_host_the_browser_used_when_it_is_ours():
    """Through `ssh -L` a browser opens http://localhost:PORT: the page's websocket must go there too
    (the origin the page's socket sends is that host's); a Host that is not the server's (DNS rebinding)
    is refused."""
    import urllib.error
    import urllib.request

    def page(host: str) -> str:
        request = urllib.request.Request(s.url, headers={"Host": host})
        return urllib.request.urlopen(request, timeout=30).read().decode()

    with served() as s:
        assert f'data-session-websocket-url="ws://localhost:{s.port}/ws/{s.token}"' in page(f"localhost:{s.port}")
        for host in (f"evil.example:{s.port}", 'localhost:1/"><script>'):  # DNS rebinding, an injected Host
            with pytest.raises(urllib.error.HTTPError) as refused:
                page(host)
            assert refused.value.code == 421, host
        s.wait_output("is not this server's")


def test_rebinding_host_refused_on_every_route():
    """A page on evil.example (resolved to 127.0.0.1) sends Host and Origin evil.example:PORT: same-origin
    in the browser's view. Page, websocket, downloads and static files refuse it, even with the token."""
    import urllib.error
    import urllib.request

    with served() as s:
        evil = f"evil.example:{s.port}"
        for path in (f"/?token={s.token}", "/static/", "/download/x"):
            request = urllib.request.Request(f"http://127.0.0.1:{s.port}{path}", headers={"Host": evil})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == 421, path
        headers = {"Host": evil, "Origin": f"http://{evil}"}
        assert run(handshake_status(s.ws_url(), headers)) == 421
        assert s.tabs() == []


def test_an_empty_missing_or_doubled_host_header_is_one_line_in_the_log():
    """Issue 52 item 11: an empty Host, no Host at all in HTTP/1.1, or Host given twice (aiohttp's parser
    refuses the last two itself) is one line in serve's log, as every refusal is: aiohttp logged its
    parser's traceback on each such request. The raw `GET / HTTP/1.1` with no Host line was the one that
    showed it (BadHttpMessage: Missing 'Host' header); an empty `Host:` was refused in one line already."""
    import socket

    def raw(s, request: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", s.port), timeout=30) as c:
            c.sendall(request)
            return c.recv(64)

    def sent(s, headers: str) -> bytes:
        return raw(s, f"GET /?token={s.token} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n".encode())

    with served() as s:
        assert sent(s, "Host:\r\n").startswith(b"HTTP/1.1 421")
        assert raw(s, b"GET / HTTP/1.1\r\nHost:\r\n\r\n").startswith(b"HTTP/1.1 421")  # kept alive, no token
        assert sent(s, f"Host: 127.0.0.1:{s.port}\r\nHost: 127.0.0.1:{s.port}\r\n").split()[1] == b"400"
        assert raw(s, b"GET / HTTP/1.1\r\n\r\n").split()[1] == b"400"  # no Host line at all
        s.wait_output("refused a malformed request from 127.0.0.1 (400): Duplicate 'Host' header found.")
        s.wait_output("refused a malformed request from 127.0.0.1 (400): Missing 'Host' header in request.")
        s.wait_output("refused GET / from 127.0.0.1: no Host header")
        assert "Traceback" not in s.output(), s.output()

"""Issue 33 as an attacker does it, in a real browser: the user has opened the printed URL, then
visits (and reloads) a page of another origin (here another port of 127.0.0.1, as another local
user's server would be: cookies ignore ports, so a cookie holding the token would be sent there)
whose script opens the server's websocket and types `s`, a path and enter, and which frames the
server's page. The browser holds no cookie, the other port's server receives no token in any
request, the socket and the framed page are refused with 403 (no explorer starts), nothing is
written, and the server logs why. Headless Chromium; skipped as the browser test is
(tests/tui/test_serve_browser.py)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.tui.serving import served
from tests.tui.test_serve_browser import devtools, pytestmark  # noqa: F401  (the same skips)

ATTACK = """<!doctype html><iframe src="http://127.0.0.1:%(port)d/"></iframe><script>
const ws = new WebSocket("ws://127.0.0.1:%(port)d/ws?width=80&height=24");
ws.onopen = () => { for (const k of ["s", ..."%(path)s", "\\r"]) ws.send(JSON.stringify(["stdin", k]));
                    document.title = "opened"; };
ws.onerror = () => { document.title = "refused"; };
</script>"""


def attacker_site(port: int, path: str, seen: list[str]) -> ThreadingHTTPServer:
    """The attacker's server: serves ATTACK and records each request it receives (line and headers)."""
    page = (ATTACK % {"port": port, "path": path}).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802  (http.server's name)
            seen.append(f"{self.requestline}\n{self.headers}")
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site


async def visit(s, attacker: str, profile) -> str:
    deadline = time.monotonic() + 120
    async with devtools(profile, deadline) as call:
        await call("Page.navigate", url=s.url)  # the user's own tab (it set the token's cookie once)
        for _ in range(2):  # a visit, then a reload: the reload is where the cookie used to travel
            await call("Page.navigate", url=attacker)
            title = ""
            while title not in ("opened", "refused") and time.monotonic() < deadline:
                got = await call("Runtime.evaluate", expression="document.title", returnByValue=True)
                title = got.get("result", {}).get("value", "")
                await asyncio.sleep(0.05)  # a poll interval
        cookies = await call("Network.getAllCookies")
        return title, json.dumps(cookies)


def test_a_page_of_another_origin_cannot_drive_the_explorer(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    target = tmp_path / "pwned.toml"
    with served(cwd=root) as s:
        seen: list[str] = []
        site = attacker_site(s.port, str(target), seen)
        try:
            attacker = f"http://127.0.0.1:{site.server_address[1]}/"
            title, cookies = asyncio.run(asyncio.wait_for(visit(s, attacker, tmp_path / "profile"), 150))
        finally:
            site.shutdown()
        assert len(seen) >= 2, seen  # the visit and the reload reached the other port
        assert not [r for r in seen if s.token in r or "cookie:" in r.lower()], seen  # no token went there
        assert s.token not in cookies and f"attn_tui_token_{s.port}" not in cookies, cookies  # none is kept
        assert title == "refused"
        s.wait_output(f"refused GET /ws from 127.0.0.1: Origin '{attacker.rstrip('/')}' is not this server's")
        assert "session opened" not in s.output().split("refused GET /ws")[-1]
        assert not target.exists()
        s.wait_output("refused GET / from 127.0.0.1: no token")  # the framed page: no token in its URL

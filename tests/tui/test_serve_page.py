"""Issue 42 item 4: the served page. Keys did nothing until the page was clicked, the top row of pane
titles was clipped, and at 800×500 A's last column was off the right edge while space was left: the
body's 8-pixel margin made the page larger than the window around a window-sized terminal.

The page itself (always): the style that makes the terminal fill the window, and the script that
gives it the focus. In headless Chromium at 800×500 (with ATTN_BROWSER_TEST=1, as the other browser
test): the terminal's input has the focus with no click, the page does not scroll, the terminal's
screen lies inside the window, and at the size the page posts A, O and H show every column. Down the
websocket (always), at that size: A's and O's last columns are on the screen the explorer draws."""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.request

import pytest

from attn_tui.serve import page
from tests.tui.serving import served


def test_the_page_fills_the_window_and_focuses_the_terminal():
    with served() as s:
        with urllib.request.urlopen(s.url, timeout=30) as r:  # the URL serve printed, with its token
            html = r.read().decode()
    head = html[: html.index("</head>")]
    assert page.STYLE in head and page.SCRIPT in head
    assert "margin: 0" in page.STYLE and "overflow: hidden" in page.STYLE
    assert 'querySelector("#terminal textarea")' in page.SCRIPT and "focus()" in page.SCRIPT


BROWSER = os.environ.get("ATTN_BROWSER_TEST") == "1"
# The terminal size the page gives the explorer: textual-serve's script opens the websocket with
# ?width=&height= and later sends ["resize", {width, height}].
RECORD_SIZE = """(() => {
  const WS = window.WebSocket;
  const note = (w, h) => { window.__posted_size = [Number(w), Number(h)]; };
  window.WebSocket = function (url, protocols) {
    const q = new URL(url, location.href).searchParams;
    if (q.get("width")) note(q.get("width"), q.get("height"));
    const ws = new WS(url, protocols);
    const send = ws.send.bind(ws);
    ws.send = (data) => {
      try {
        const m = JSON.parse(data);
        if (Array.isArray(m) && m[0] === "resize") note(m[1].width, m[1].height);
      } catch (e) {}
      return send(data);
    };
    return ws;
  };
  window.WebSocket.prototype = WS.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();"""
PROBE = """JSON.stringify((() => {
  const screen = document.querySelector("#terminal .xterm-screen");
  const r = screen ? screen.getBoundingClientRect() : null;
  return {
    started: document.body.classList.contains("-first-byte"),
    focused: document.activeElement === document.querySelector("#terminal textarea"),
    scrolls: document.scrollingElement.scrollWidth > innerWidth || document.scrollingElement.scrollHeight > innerHeight,
    inside: r !== null && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
    rect: r && [r.left, r.top, r.right, r.bottom], window: [innerWidth, innerHeight],
    size: window.__posted_size || null,
  };
})())"""


@pytest.mark.skipif(not BROWSER, reason="the headless-Chromium tests run only with ATTN_BROWSER_TEST=1")
def test_in_chromium_at_800_by_500_keys_work_at_once_and_nothing_is_cut(tmp_path):
    from tests.tui.test_serve_browser import CHROMIUM, devtools

    if CHROMIUM is None:
        pytest.skip("Chromium not installed")

    async def probe(url):
        deadline = time.monotonic() + 120
        async with devtools(tmp_path / "profile", deadline) as call:
            await call("Emulation.setDeviceMetricsOverride", width=800, height=500, deviceScaleFactor=1, mobile=False)
            await call("Page.enable")  # without it the script below was not run on the page (seen here)
            await call("Page.addScriptToEvaluateOnNewDocument", source=RECORD_SIZE)
            await call("Page.navigate", url=url)
            seen = {}
            while time.monotonic() < deadline:
                got = await call("Runtime.evaluate", expression=PROBE, returnByValue=True)
                seen = json.loads(got.get("result", {}).get("value") or "{}")
                if seen.get("started") and seen.get("focused") and seen.get("size"):
                    break
                await asyncio.sleep(0.1)  # a poll interval; the deadline only stops a page that never draws
            return seen

    with served() as s:
        seen = asyncio.run(probe(s.url))
    assert seen.get("started"), seen
    assert seen["focused"], seen  # keys go to the explorer with no click
    assert not seen["scrolls"] and seen["inside"], seen  # the whole terminal in the window
    # the size the page gave the explorer: A, O and H show every column there (88×26 here; A hid t5)
    from tests.tui.test_layout_whole import assert_A_O_H_whole

    asyncio.run(assert_A_O_H_whole(tuple(seen["size"])))


async def _served_screen(s, size, want, seconds: float) -> str:
    """The screen the served explorer draws at ``size`` (the ?width=&height= the page's script puts on
    its websocket), kept by bench.pty_bytes' emulator, once a line satisfies ``want``."""
    import aiohttp

    from attn_tui.bench.pty_bytes import Screen

    screen, deadline = Screen(*size), time.monotonic() + seconds
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(s.ws_url(*size), headers={"Origin": s.origin}) as ws:
            while time.monotonic() < deadline and not any(want(line) for line in screen.text().splitlines()):
                try:
                    msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
                except TimeoutError:
                    break
                if msg.type != aiohttp.WSMsgType.BINARY:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break  # closed
                    continue
                screen.feed(msg.data)
    return screen.text()


@pytest.mark.slow
def test_served_at_the_size_of_an_800_by_500_page_A_and_O_show_every_column():
    """Down the websocket, at the 88×26 headless Chromium's 800×500 page posted: A's header names t5
    and O's names pron on the same screen line (A hid t5 and O pron there)."""

    def whole(line: str) -> bool:
        return all(w in line for w in ("t1", "t5", "noun", "pron"))

    with served() as s:
        text = asyncio.run(asyncio.wait_for(_served_screen(s, (88, 26), whole, 90), 120))
    assert any(whole(line) for line in text.splitlines()), text

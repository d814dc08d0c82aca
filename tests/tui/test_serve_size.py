"""`attn-tui serve` lays out for the browser's size when the browser sends it once, as its page
does: the websocket opens with no size in its URL (textual-serve starts the explorer at 80×24) and
the first message is ``["resize", {...}]``. Textual's web driver could handle its 80×24 start size
after that resize, and the explorer stayed at an 80×24 fit in a 120×40 window until the browser
was resized (issue 31). The answer to a key pressed after the first frame shows where the explorer
draws now: the lenses screen's key bar on row 40 of 40, not on row 24 of 24."""

from __future__ import annotations

import asyncio
import re
import time

import aiohttp
import pytest

from tests.tui.serving import served

pytestmark = pytest.mark.slow  # a server, a browser's websocket and an explorer behind it

MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")  # Textual moves the cursor to each line it writes


def rows_with(stream: str, text: str) -> set[int]:
    """The rows on which a line containing ``text`` was written."""
    parts = MOVE.split(stream)  # [before, row, col, text, row, col, text, ...]
    return {int(parts[i]) for i in range(1, len(parts) - 2, 3) if text in parts[i + 2]}


async def key_bar_rows_after_a_key(s, size: tuple[int, int], deadline: float) -> set[int]:
    stream = ""

    async def until(text: str) -> bool:
        nonlocal stream
        while not rows_with(stream, text):
            try:
                msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                return False
            if msg.type == aiohttp.WSMsgType.BINARY:
                stream += msg.data.decode("utf-8", "replace")
            elif msg.type != aiohttp.WSMsgType.TEXT:
                return False  # closed: the explorer exited
        return True

    async with aiohttp.ClientSession() as session:
        url = f"ws://127.0.0.1:{s.port}/ws?token={s.token}"  # the token, no size: textual-serve starts at 80x24
        async with session.ws_connect(url, headers={"Origin": s.origin}) as ws:
            await ws.send_json(["resize", {"width": size[0], "height": size[1]}])  # once, as the page does
            assert await until("palette"), "the explorer drew no key bar"
            stream = ""
            await ws.send_json(["stdin", "l"])  # the lenses screen: every line is written anew
            assert await until("palette"), "the lenses screen drew no key bar"
            return rows_with(stream, "palette")


def test_first_layout_is_for_the_size_sent_at_connect():
    with served() as s:
        coro = key_bar_rows_after_a_key(s, (120, 40), time.monotonic() + 90)
        rows = asyncio.run(asyncio.wait_for(coro, 120))
    assert rows == {40}, f"the key bar was drawn on rows {sorted(rows)}, not on row 40 of the 120×40 window"

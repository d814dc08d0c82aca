"""The explorer's first screen reaches the terminal whole, top row first (framework.draw_after_batches):
Textual dropped the first frame, drawn during its start-up batch, and then sent only the panes that
changed since (the chart, status and key bar rows) before the rest, a layout later (issue 32's launch).
Read through a real pty at 120x40, as a user starts it; no timing is asserted."""

from __future__ import annotations

import os
import re
import select
import time

from attn_tui.tui.bench.launch import EXPLORER_READY
from attn_tui.tui.bench.pty_bytes import PtyApp

MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")


def _first_screen_bytes() -> bytes:
    app = PtyApp(ready=None)
    data, end = b"", time.monotonic() + 60
    try:
        while not all(text in app.screen.text() for text in EXPLORER_READY):
            assert time.monotonic() < end and app.proc.poll() is None, "no first screen"
            if select.select([app.fd], [], [], 1.0)[0]:
                chunk = os.read(app.fd, 65536)
                data += chunk
                app.screen.feed(chunk)
    finally:
        app.close()
    return data


def test_the_first_screen_is_sent_from_its_top_row():
    moves = [int(row) for row, _col in MOVE.findall(_first_screen_bytes())]
    assert moves and moves[0] == 1, f"the first update began at row {moves[0] if moves else None}"
    assert set(range(1, 41)) <= set(moves[: moves.index(40) + 1])  # every row, before any second update

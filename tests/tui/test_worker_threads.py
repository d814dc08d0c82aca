"""Issue 52 items 2 and 3: a worker thread that is cancelled (superseded by the next of its exclusive
group, or by the app's exit) stops reading heads at its next row block (core/cancel.py), instead of
reading to the end beside the one that replaced it; and the explorer's exit waits for none of them
(tui/worker_threads.py). The source is a sparse file of 1,024 x 1,024 heads: minutes to read whole."""

from __future__ import annotations

import asyncio
import threading

from attn_tui.core.cancel import Cancelled, cancellable, check
from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.query_top import query_tops
from attn_tui.tui.app import AttentionApp
from tests.core.badheads import sparse_heads
from tests.tui.ptyrun import DEADLINE


async def test_a_superseded_worker_stops_reading(tmp_path):
    src = open_heads(str(sparse_heads(tmp_path / "many.safetensors", L=1024, H=1024, T=16)))
    started, ended, outcome = threading.Event(), threading.Event(), []

    def read_every_head():
        started.set()
        try:
            query_tops(src, 0)  # row 1 of each of the 1,048,576 heads
            outcome.append("read to the end")
        except Cancelled:
            outcome.append("cancelled")
            raise
        finally:
            ended.set()

    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        first = app.run_worker(read_every_head, thread=True, exclusive=True, group="read")
        assert await asyncio.to_thread(started.wait, DEADLINE)
        app.run_worker(lambda: None, thread=True, exclusive=True, group="read")  # the next request
        assert first.is_cancelled
        assert await asyncio.to_thread(ended.wait, DEADLINE), "the superseded worker kept reading"
        assert outcome == ["cancelled"]
        await pilot.pause()
        assert app.return_code is None  # its Cancelled is no error of the app's


def test_check_raises_only_inside_a_cancelled_block():
    check()  # nothing set: the CLI's and the tests' own calls
    flag = [False]
    with cancellable(lambda: flag[0]):
        check()
        flag[0] = True
        try:
            check()
            raise AssertionError("check() did not raise once cancelled")
        except Cancelled:
            pass
    check()  # the block ended: nothing set again


async def test_a_superseded_call_stops_before_the_next_of_its_group_starts():
    """Issue 52 item 3: R then j x 6 started six rollouts while the superseded ones were still reading
    up to their next check(), each holding a head's Q and K (803 MiB peak on a 16-head x 16,384 x d 256
    file, 677 MiB with the gate: R alone is 665). A call of an exclusive group now starts once the
    cancelled calls before it have stopped (worker_threads._Gate); here the first call reads without a
    check() until released, so the second can only start after it."""
    release, order = threading.Event(), []
    first_reading = threading.Event()

    def first():
        first_reading.set()
        release.wait(DEADLINE)  # a read between two check()s
        order.append("first stopped")

    def second():
        order.append("second started")

    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        w1 = app.run_worker(first, thread=True, exclusive=True, group="read")
        assert await asyncio.to_thread(first_reading.wait, DEADLINE)
        w2 = app.run_worker(second, thread=True, exclusive=True, group="read")  # supersedes the first
        assert w1.is_cancelled
        while not w2.is_running:  # submitted to the executor: waiting at the gate
            await pilot.pause()
        release.set()
        await w2.wait()
        assert order == ["first stopped", "second started"], order


async def test_calls_of_a_group_that_is_not_exclusive_still_run_side_by_side():
    """The gate waits only on cancelled calls: two edits (group "edit", not exclusive) run together."""
    met = threading.Barrier(2, timeout=DEADLINE)
    app = AttentionApp()
    async with app.run_test(size=(80, 24)):
        workers = [app.run_worker(met.wait, thread=True, group="edit") for _ in range(2)]
        for w in workers:
            await w.wait()
        assert not met.broken

"""Issue 52: no file under 1 MB takes 500 MB on any screen. The largest head a file of a few KB may
promise is READER_FLOOR's (core/reader_sizes.reader_budget): 16 heads x 16,384 tokens x d 64 here,
sparse. The explorer opens it, then the token view's rollout R with j pressed six times at once (each
j supersedes the last rollout: worker_threads._Gate starts one after the other has stopped), the heads
screen and the model view, in a fresh interpreter whose own peak RSS is the measure.

Measured (2 cores, loaded): 393 MiB at this floor on 4 Dec, 439 MiB (its own VmHWM) on 5 Dec. Before the
floor, the same file at d 256 (a few KB: now refused from its headers) took 545 MiB at launch and 803 MiB
after T R j x 6."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.core.badheads import sparse_heads
from tests.peak_rss import BUDGET, MIB, PRINT_PEAK, printed_peak

SCRIPT = f"""
import asyncio, sys
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen

async def settled(app, pilot):
    for _ in range(2):
        await pilot.pause()
        await app.workers.wait_for_complete()
        await app.screen.workers.wait_for_complete()

async def main(path):
    s, ref = open_ref(path, None)
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(app, pilot)
        await pilot.press("T", "R", *"jjjjjj")  # six rollouts asked, each superseding the last
        await settled(app, pilot)
        assert isinstance(app.screen, TokensScreen) and app.screen.rollout, app.screen
        await pilot.press("escape", "h")
        while not (isinstance(app.screen, HeadsScreen) and app.screen._done):
            await pilot.pause()  # the heads' worker: waited on (the pilot idles)
        await pilot.press("escape", "M")
        await settled(app, pilot)
        assert isinstance(app.screen, ModelScreen), app.screen
    {PRINT_PEAK}

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.slow
@pytest.mark.long  # the long lane (docs/TESTING.md)
def test_the_explorer_on_the_largest_head_a_few_kb_may_promise_stays_under_the_budget(tmp_path):
    path = sparse_heads(tmp_path / "floor.safetensors", L=1, H=16, T=16384, d=64)
    assert path.stat().st_blocks * 512 < 2**16  # a few KB on disk
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-2000:]
    peak = printed_peak(out.stdout)
    assert peak < BUDGET, f"peak {peak / MIB:.0f} MiB"

"""The explorer's one BLAS thread (blas_limit.one_blas_thread): set before the first frame when that frame
computes much (a large scenario, a multi-head source's neighbours in a worker), else once the
first frame is drawn (threadpoolctl's import and library scan were ~3 ms of a launch, issue 32)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from attn_tui.cli.blas_limit import blas_first
from attn_tui.tui import framework
from attn_tui.tui.app import AttentionApp


@pytest.mark.parametrize(
    ("large", "head", "first"), [(False, None, False), (True, None, True), (False, object(), True)]
)
def test_one_blas_thread_comes_first_only_when_the_first_frame_computes_much(large, head, first):
    assert blas_first(SimpleNamespace(large=large, head=head)) is first


def test_the_default_launch_sets_it_after_the_first_frame():
    assert not blas_first(AttentionApp().state)


async def test_what_waits_for_the_first_frame_runs_after_it():
    app, seen = AttentionApp(), []
    framework.on_first_frame(app, lambda: seen.append("frame"))
    app.after_first.append(lambda: seen.append("after"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        assert seen[:2] == ["frame", "after"] and seen.count("after") == 1

"""The benchmark's split of the first frame (bench/first_frame.py): the explorer's own code timed
once however its methods nest, the methods restored, the app running as usual meanwhile."""

from __future__ import annotations

import itertools

from attn_tui.bench import first_frame
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.pipeline import PipelineScreen


class Toy:
    def outer(self) -> str:
        return self.inner() + "!"

    def inner(self) -> str:
        return "in"


def test_nested_calls_are_timed_once_and_the_methods_restored(monkeypatch):
    ticks = itertools.count()  # a clock that moves one second per reading
    monkeypatch.setattr(first_frame.time, "process_time", lambda: next(ticks))
    outer, inner = Toy.__dict__["outer"], Toy.__dict__["inner"]
    with first_frame.own_code(((Toy, "outer"), (Toy, "inner"))) as own:
        assert Toy().outer() == "in!"
        assert own.seconds == 1  # read at outer's start and end only: inner ran inside it
        assert Toy().inner() == "in"
        assert own.seconds == 2
    assert Toy.__dict__["outer"] is outer and Toy.__dict__["inner"] is inner


async def test_the_explorer_opens_as_usual_and_its_code_is_part_of_the_frame():
    show = PipelineScreen.__dict__["show"]
    total, own = await first_frame.split(AttentionApp, (120, 40))
    assert 0 < own < total  # the pipeline's show, the grids' lines, ... ran before the first frame
    assert PipelineScreen.__dict__["show"] is show

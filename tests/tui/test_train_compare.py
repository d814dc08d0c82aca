"""The training screen's comparison (c): the rows are compare_all()'s, computed in child processes;
the screen answers keys meanwhile, pauses a live run, and kills the processes when left for
another screen, when c is pressed again, or when the app ends. Waits on state, never on time."""

from __future__ import annotations

import asyncio
import signal

import pytest
from textual.widgets import Input

from attn_tui.core.train import compare
from attn_tui.core.train.pool import Runs
from attn_tui.core.train.run import Config
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens import train as train_screen
from attn_tui.tui.screens.train import TrainScreen
from attn_tui.tui.views import train_view as tv

SIZE = (120, 40)
KILLED = -signal.SIGKILL
pytestmark = pytest.mark.usefixtures("unpaced")


async def open_train(pilot) -> TrainScreen:
    await pilot.pause()
    await pilot.press("L")
    await pilot.pause()
    assert isinstance(pilot.app.screen, TrainScreen)
    return pilot.app.screen


def status(screen) -> str:
    return str(screen.query_one("#compare-status").render())


async def ended(runs) -> list:
    """The processes' return codes once each has ended (waited on in a thread: the event loop runs)."""
    return [await asyncio.to_thread(p.wait, 60) for p in runs.processes]


@pytest.fixture
def endless(monkeypatch):
    """A comparison that cannot end during a test: only killing it stops it."""
    monkeypatch.setattr(compare, "COMPARE_STEPS", 100_000)


async def test_the_rows_are_compare_alls(monkeypatch):
    monkeypatch.setattr(compare, "DKS", (4, 32))
    monkeypatch.setattr(compare, "COMPARE_STEPS", 40)
    made = []  # the comparison's Runs: these 40-step runs may be over before the screen is looked at
    monkeypatch.setattr(train_screen, "Runs", lambda *a: made.append(Runs(*a)) or made[-1])
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        screen.query_one("#in-seed", Input).value = "3"
        await pilot.press("r", "c")
        [runs] = made
        assert "seed 3" in status(screen)  # "0 of N runs done" first: the endless test (these 40-step runs may be done)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        want = compare.compare_all(Config(steps=40, seed=3), (4, 32))
        assert screen.query_one("#compare-text").content == tv.comparison(want)  # every figure shown
        assert await ended(runs) == [0] * len(runs.processes) and screen.compare_runs is None
        assert status(screen).startswith("measured, 40 steps each") and "seed 3" in status(screen)


@pytest.mark.long
@pytest.mark.usefixtures("endless")
@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
async def test_keys_answer_and_a_live_run_pauses_while_it_compares():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        screen.query_one("#in-steps", Input).value = "100000"
        await pilot.press("r", "space")
        assert screen.running
        await pilot.press("c")
        assert not screen.running and "the run is paused" in status(screen)
        assert "0 of 6 runs done" in status(screen)
        step = screen.trainer.step_count
        await pilot.press("n")  # a step of the live run, here, while the comparison runs
        assert screen.trainer.step_count == step + 1
        await pilot.press("v")
        assert str(screen.query_one("#train-bottom").current) == "train-qk"
        runs = screen.compare_runs
        assert all(p.poll() is None for p in runs.processes)
    assert await ended(runs) == [KILLED] * len(runs.processes)  # the app ended: so did they


@pytest.mark.usefixtures("endless")
async def test_leaving_for_another_screen_kills_its_processes():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        await pilot.press("c")
        runs = screen.compare_runs
        assert runs is not None and all(p.poll() is None for p in runs.processes)
        await pilot.press("p")  # the pipeline
        await pilot.pause()
        assert await ended(runs) == [KILLED] * len(runs.processes)
        await screen.workers.wait_for_complete()
        assert screen.compare_runs is None and screen.query_one("#compare-text").content == ""  # none shown
        await pilot.press("L")
        await pilot.pause()
        assert "stopped when you left this screen: c runs it again" in status(screen)


@pytest.mark.long
@pytest.mark.usefixtures("endless")
@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
async def test_a_dialog_over_the_screen_leaves_it_running_and_c_again_starts_anew():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        await pilot.press("c")
        first = screen.compare_runs
        await pilot.press("question_mark")  # the help, over this screen
        await pilot.pause()
        assert app.screen is not screen and screen.compare_runs is first
        assert all(p.poll() is None for p in first.processes)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("c")
        assert screen.compare_runs is not first
        assert await ended(first) == [KILLED] * len(first.processes)
        second = screen.compare_runs
    assert await ended(second) == [KILLED] * len(second.processes)


@pytest.mark.usefixtures("endless")
async def test_a_process_that_dies_is_said_in_one_line_and_the_others_are_killed():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        await pilot.press("c")
        runs = screen.compare_runs
        runs.processes[0].kill()  # from outside, as the OOM killer would
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen) == "the comparison failed: a training run's process ended before its run did"
        assert await ended(runs) == [KILLED] * len(runs.processes) and screen.compare_runs is None

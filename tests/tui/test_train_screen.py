"""The training screen (T): run, step, reset, controls, the worker, the comparison, open in the explorer."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest
from textual.widgets import Input

from attn_tui.core import scenario_io as io
from attn_tui.core.train import compare
from attn_tui.core.train.run import Config, Trainer, run
from attn_tui.tui import keys
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.train import TrainScreen
from attn_tui.tui.views import train_view as tv

SIZE = (120, 40)
pytestmark = pytest.mark.usefixtures("unpaced")  # the runs unpaced (conftest.py)


async def open_train(pilot, steps: int | None = None) -> TrainScreen:
    await pilot.pause()
    await pilot.press("L")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, TrainScreen)
    if steps is not None:
        screen.query_one("#in-steps", Input).value = str(steps)
        await pilot.press("r")
        await pilot.pause()
    return screen


def test_the_key_the_palette_and_the_help_name_it():
    rows = [k for k in keys.all_keys() if k.action == "switch_mode('train')"]
    assert [(k.key, k.description, k.scope) for k in rows] == [("L", "Train", "app")]
    train = {k.action for k in keys.all_keys() if k.scope == "train"}
    assert {"run", "step", "reset", "toggle_scaled", "compare", "explore", "toggle_view"} <= train


@pytest.mark.slow
async def test_the_palette_command_train_opens_it(settle):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"train")
        await settle(pilot)  # the palette's search runs in a worker
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TrainScreen)


async def test_run_trains_to_the_end_and_draws_it():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot, steps=120)
        await pilot.press("space")
        await screen.workers.wait_for_complete()
        await pilot.pause()
        tr = screen.trainer
        assert tr.step_count == 120 and not screen.running
        assert tr.summary() == run(Config(steps=120))  # the same seeded run as headless
        status = str(screen.query_one("#train-status").render())
        assert "step 120/120" in status and "done" in status
        probe = screen.query_one("#train-probe")
        A = tr.probe_trace().A
        for t in range(A.shape[0]):
            for i in range(A.shape[1]):
                assert float(probe.cell_text(t, i)) == pytest.approx(A[t, i], abs=6e-4, rel=0.06)
        assert tv.probe_right(tv.snapshot(tr)) == int(np.sum(A.argmax(1) == tr.probe[2]))


async def test_step_reset_and_scaled_toggle():
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        await pilot.press("n", "n")
        assert screen.trainer.step_count == 2
        await pilot.press("u")
        assert screen.config.scaled is False and screen.trainer.step_count == 0
        assert "unscaled" in str(screen.query_one("#train-scale").render())
        screen.query_one("#in-d_k", Input).value = "0"
        await pilot.press("r")
        await pilot.pause()
        assert screen.config.d_k == 16 and screen.config.scaled is False  # the bad control changed nothing
        assert "d_k" in str(screen.query_one("#train-status").render())


@pytest.mark.slow
async def test_the_ui_answers_while_the_worker_trains(monkeypatch):
    """A step is held inside the worker (a gate the test opens); keys on this screen and on the
    pipeline are handled meanwhile. Waits on events, never on time (60 s bounds a broken build)."""
    from textual.worker import WorkerState

    inside, release = threading.Event(), threading.Event()
    real_step = Trainer.step

    def held_step(self):
        inside.set()
        release.wait(60)
        real_step(self)

    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot, steps=8)
        monkeypatch.setattr(Trainer, "step", held_step)
        await pilot.press("space")
        assert await asyncio.to_thread(inside.wait, 60), "training never started"
        workers = [w for w in screen.workers if w.group == "train"]
        assert [w.state for w in workers] == [WorkerState.RUNNING]
        await pilot.press("v")
        assert str(screen.query_one("#train-bottom").current) == "train-compare"
        await pilot.press("p")
        await pilot.pause()
        c = app.state.scenario.c
        await pilot.press("plus")
        assert app.state.scenario.c == pytest.approx(c * 1.1)
        assert [w.state for w in workers] == [WorkerState.RUNNING] and not release.is_set()
        release.set()
        await screen.workers.wait_for_complete()
        assert screen.trainer.step_count == 8


async def test_compare_shows_what_was_measured(monkeypatch):
    monkeypatch.setattr(compare, "DKS", (4, 32))
    monkeypatch.setattr(compare, "COMPARE_STEPS", 40)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot)
        await pilot.press("c")
        await screen.workers.wait_for_complete()
        await pilot.pause()
        want = compare.compare_all(Config(steps=40), (4, 32))
        assert screen.query_one("#compare-text").content == tv.comparison(want)
        text = str(screen.query_one("#compare-text").render())
        assert want[1]["verdict"][:60] in text.replace("\n", " ")


@pytest.mark.slow
async def test_save_opens_the_learned_head_on_the_pipeline(tmp_path):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot, steps=30)
        await pilot.press("space")
        await screen.workers.wait_for_complete()
        await pilot.press("s")
        await pilot.pause()
        path = tmp_path / "head.toml"
        dialog = app.screen
        dialog.query_one(Input).value = str(path)
        await pilot.press("enter")
        for _ in range(5):
            await pilot.pause()
        saved = io.load(path)
        np.testing.assert_array_equal(saved.W_Q, screen.trainer.params.W_Q)
        np.testing.assert_array_equal(app.state.scenario.W_K, screen.trainer.params.W_K)
        assert app.current_mode == "pipeline"
        np.testing.assert_allclose(app.state.trace.A, screen.trainer.probe_trace().A, atol=1e-15)


def test_parse_controls_refuses_with_one_line():
    assert tv.parse_controls({"lr": "0.5", "d_k": "16", "steps": "300", "seed": "0"}) == (
        {"lr": 0.5, "d_k": 16, "steps": 300, "seed": 0},
        None,
    )
    for texts, start in (
        ({"lr": "abc", "d_k": "16", "steps": "3", "seed": "0"}, "lr: 'abc'"),
        ({"lr": "0.5", "d_k": "1.5", "steps": "3", "seed": "0"}, "d_k: '1.5'"),
        ({"lr": "0.5", "d_k": "16", "steps": "0", "seed": "0"}, "steps: 0"),
        ({"lr": "-2", "d_k": "16", "steps": "3", "seed": "0"}, "lr: -2"),
    ):
        values, err = tv.parse_controls(texts)
        assert values is None and err.startswith(start) and "\n" not in err


def test_curves_are_shares_of_their_maxima():
    tr = Trainer(Config(d_k=4, steps=20, log_every=5))
    while not tr.done:
        tr.step()
    c = tv.curves(tv.snapshot(tr))
    n = tr.task.n_keys
    assert c.steps == [0, 5, 10, 15, 20]
    assert c.entropy_share[0] == pytest.approx(tr.log[0]["mean_row_entropy_bits"] / np.log2(n))
    assert c.p1p_share[-1] == pytest.approx(tr.log[-1]["mean_p_one_minus_p"] / ((1 / n) * (1 - 1 / n)))
    assert all(0 <= x <= 1 for x in c.entropy_share + c.p1p_share)


@pytest.mark.long
@pytest.mark.slow
async def test_the_tour_page_runs_the_comparison(monkeypatch):
    from attn_tui.tui.tour_text import PAGES

    monkeypatch.setattr(compare, "DKS", (4,))
    monkeypatch.setattr(compare, "COMPARE_STEPS", 20)
    monkeypatch.setattr(compare, "_MEASURED", {})  # the page's 20-step runs stay out of the real cache
    page = next(p for p in PAGES if p.key == "train")
    assert "√d_k (2, 8, 16 at d_k = 4, 64, 256)" not in page.text  # built from DKS when drawn
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        await pilot.pause()
        tour = app.screen
        while tour.page.key != "train":
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("y")  # the page asks first: try-it waits
        await pilot.pause()
        assert app.screen is tour
        await tour.workers.wait_for_complete()
        await pilot.press("s", "y")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TrainScreen)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert screen.query_one("#compare-text").content == tv.comparison(compare.compare_all(Config(steps=20), (4,)))
        assert str(screen.query_one("#train-bottom").current) == "train-compare"


def test_the_tour_text_quotes_the_sd_of_raw_scores():
    text = tv.tour_page()
    assert "√d_k (2, 8, 16 at d_k = 4, 64, 256)" in text


async def test_reset_while_training_drops_the_old_run(monkeypatch):
    """r during a run: the worker is cancelled, the new run starts at step 0, and the old
    worker's last frame (it finishes the step it was in) is not drawn over the new run."""
    inside, release = threading.Event(), threading.Event()
    real_step = Trainer.step

    def held_step(self):
        inside.set()
        release.wait(60)
        real_step(self)

    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot, steps=8)
        old = screen.trainer
        monkeypatch.setattr(Trainer, "step", held_step)
        await pilot.press("space")
        assert await asyncio.to_thread(inside.wait, 60)
        await pilot.press("r")
        monkeypatch.setattr(Trainer, "step", real_step)
        release.set()
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert screen.trainer is not old and screen.trainer.step_count == 0 and not screen.running
        assert "step 0/8" in str(screen.query_one("#train-status").render())
        assert old.step_count == 1  # the step it was in, and no more


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.slow  # a key monkey
@pytest.mark.long  # the long lane (docs/TESTING.md)
async def test_random_keys_on_the_training_screen_never_crash(seed, tmp_path, monkeypatch):
    """A seeded key monkey on this screen (the app's monkey never presses T): runs, steps, resets,
    toggles, comparisons, typed controls and resizes; nothing crashes and the run stays consistent."""
    import random

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(compare, "DKS", (2, 8))
    monkeypatch.setattr(compare, "COMPARE_STEPS", 15)
    rng = random.Random(seed)
    keys_ = list("nrucvs0123456789.-e") + ["space", "tab", "shift+tab", "enter", "escape", "backspace", "pagedown"]
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot, steps=20)
        for i in range(150):
            if app.screen is not screen and not isinstance(app.screen, TrainScreen):
                await pilot.press("escape")  # a save dialog: leave it
                if app.current_mode != "train":
                    await pilot.press("L")
                await pilot.pause()
                continue
            if i % 50 == 0:
                await pilot.resize_terminal(*rng.choice([(120, 40), (80, 24), (40, 12), (200, 60)]))
            await pilot.press(rng.choice(keys_))
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert app.return_code is None
        tr = screen.trainer
        assert 0 <= tr.step_count <= tr.config.steps and tr.log[-1]["step"] <= tr.step_count
        assert tr.config == screen.config


@pytest.mark.long
@pytest.mark.slow
async def test_pause_then_run_again_keeps_training(monkeypatch):
    """space, space, space: the first worker's "stopped" must not stop the run started after it."""
    from attn_tui.tui.screens import train

    monkeypatch.setattr(train, "FRAME", 0.01)  # paced, so the pause lands mid-run
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_train(pilot, steps=200)
        await pilot.press("space", "space", "space")
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert screen.trainer.step_count == 200 and not screen.running
        assert "done" in str(screen.query_one("#train-status").render())

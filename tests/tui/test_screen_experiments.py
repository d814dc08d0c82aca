"""Pilot and snapshot tests of the experiments screen (`x`)."""

from __future__ import annotations

import asyncio
import io
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.experiments import parse_settings

SIZE = (120, 40)


def text(renderable, width: int = 70) -> str:
    con = Console(width=width, record=True, file=io.StringIO())
    con.print(renderable)
    return con.export_text()


async def set_inputs(pilot, screen, **values):
    for key, v in values.items():
        screen.query_one(f"#in-{key}").value = str(v)
    await pilot.pause()


@pytest.mark.slow
async def test_variance_ratio_is_one_within_ten_percent(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        rows = screen.var_rows
        assert [r["d_k"] for r in rows] == [4, 64, 512, 128]
        for r in rows:
            assert r["ratio"] == pytest.approx(1.0, rel=0.10), r  # n = 5000
            assert r["var"] == pytest.approx(r["d_k"], rel=0.10)
        shown = screen.query_one("#var-status").render()
        assert "n = 5,000" in str(shown)


async def test_custom_dk_n_and_seed_rerun(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        first = [r["var"] for r in screen.var_rows]
        await set_inputs(pilot, screen, d_k=256, n=3000, seed=1)
        await pilot.press("r")
        await screen.workers.wait_for_complete()
        await pilot.pause()
        rows = screen.var_rows
        assert rows[-1]["d_k"] == 256
        assert [r["var"] for r in rows][:3] != first[:3]  # a new seed draws new samples
        assert all(r["ratio"] == pytest.approx(1.0, rel=0.15) for r in rows)  # n = 3000
        assert len(screen.dots[256]) == 3000


@pytest.mark.slow
async def test_the_ui_keeps_answering_while_the_worker_runs(open_experiments, monkeypatch):
    """The variance is held inside its computation (a gate the test opens) while a key is
    pressed: the key is handled, so the work runs in a worker, not on the event loop. The test
    waits on the worker's state (the gate's events), never on time; the 60 s bounds only fail
    a broken build instead of hanging it."""
    import asyncio
    import threading

    from textual.worker import WorkerState

    from attn_tui.core import experiments

    inside, release = threading.Event(), threading.Event()
    real_variance = experiments.variance

    def held_variance(*args, **kwargs):
        inside.set()
        release.wait(60)
        return real_variance(*args, **kwargs)

    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        monkeypatch.setattr(experiments, "variance", held_variance)
        frame = screen.frame
        await pilot.press("r")
        assert await asyncio.to_thread(inside.wait, 60), "the variance never started"
        workers = [w for w in screen.workers if w.group == "variance"]
        assert [w.state for w in workers] == [WorkerState.RUNNING], "the variance ran on the event loop"
        await pilot.press("right")  # handled while the worker is held mid-computation
        assert screen.frame == frame + 1
        assert [w.state for w in workers] == [WorkerState.RUNNING] and not release.is_set()
        release.set()
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert [w.state for w in workers] == [WorkerState.SUCCESS]
        assert screen.query_one("#var-progress").progress == 4


def test_bad_settings_get_one_line_naming_the_key():
    assert parse_settings({"d_k": "128", "n": "5000", "seed": "8"}) == ({"d_k": 128, "n": 5000, "seed": 8}, None)
    _, err = parse_settings({"d_k": "abc", "n": "5000", "seed": "8"})
    assert err.startswith("d_k:") and "'abc'" in err
    _, err = parse_settings({"d_k": "64", "n": "5", "seed": "8"})
    assert err.startswith("n:") and "from 10 to" in err
    _, err = parse_settings({"d_k": "4096", "n": "100000", "seed": "8"})
    assert err.startswith("n:") and "exceeds" in err


async def test_bad_input_notifies_and_keeps_the_old_table(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        before = screen.var_rows
        await set_inputs(pilot, screen, n="lots")
        await pilot.press("r")
        await pilot.pause()
        assert screen.var_rows is before
        assert any("n: 'lots' is not a whole number" in m for m in app.notes.messages())


async def test_saturation_unscaled_is_one_hot_scaled_spreads(open_experiments):
    """The screen shows the core's saturation at its seed (8): unscaled one-hot, scaled spread."""
    from attn_tui.core import experiments
    from attn_tui.tui.fmt import fmt

    res = experiments.saturation(seed=8)
    assert res["unscaled"]["max"] > 0.99 and res["unscaled"]["H"] < 0.01
    assert 0.2 < res["scaled"]["max"] < 0.9 and 1.0 < res["scaled"]["H"] < 3.0
    assert res["log2_T"] == 3.0
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        shown = text(screen.query_one("#sat-table").content, 120)
        for name in ("unscaled", "scaled"):
            row = next(line for line in shown.splitlines() if line.startswith(name))
            assert row.split()[1:3] == [fmt(res[name]["max"]), fmt(res[name]["H"])]


def spy_timers(screen) -> list[tuple[object, asyncio.Event, list]]:
    """Each timer the screen starts from now on, as (timer, an event set when its callback has run,
    the list it is appended to when stopped): the play and pause are awaited, never slept through."""
    timers = []
    start = screen.set_interval

    def set_interval(interval, callback, **kw):
        ticked, stopped = asyncio.Event(), []

        def tick():
            callback()
            ticked.set()

        timer = start(interval, tick, **kw)
        stop = timer.stop

        def stop_and_note():
            stopped.append(timer)
            stop()

        timer.stop = stop_and_note
        timers.append((timer, ticked, stopped))
        return timer

    screen.set_interval = set_interval
    return timers


@pytest.mark.slow
async def test_sweep_steps_plays_and_pauses(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        assert screen.frames[screen.frame]["c"] == pytest.approx(1.0)
        await pilot.press("right", "right", "left")
        assert screen.frame == 10
        status = str(screen.query_one("#sweep-status").render())
        fr = screen.frames[10]
        assert f"c = {fr['c']:.2f}" in status and f"H = {fr['H']:.2f} bits" in status
        await pilot.press("left")
        await pilot.press(*["left"] * 10)
        assert screen.frame == 29  # wraps around: c = 3.0
        timers = spy_timers(screen)
        await pilot.press("space")
        assert "▶ playing" in str(screen.query_one("#sweep-status").render())
        ((timer, ticked, stopped),) = timers  # play started the one timer, at the sweep's FPS
        await asyncio.wait_for(ticked.wait(), timeout=60)  # awaited: its first frame played (60 s bounds a hang)
        await pilot.press("space")
        played = screen.frame
        assert played != 29
        assert stopped == [timer]  # paused: the very timer play started is stopped, so no frame follows
        await pilot.pause()
        assert screen.frame == played and "❚❚ paused" in str(screen.query_one("#sweep-status").render())


async def test_export_writes_where_the_notification_says(tmp_path, open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        screen.export_dir = tmp_path
        await pilot.press("e", "enter")  # the folder prompt, pre-filled with the folder
        await pilot.pause()
        path = tmp_path / "softmax_sharpening.svg"
        assert path.exists()
        assert len(ET.parse(path).getroot().findall("{http://www.w3.org/2000/svg}g")) == 30
        assert any(str(path) in m for m in app.notes.messages())


@pytest.mark.slow
async def test_export_to_an_unwritable_place_is_one_line_not_a_crash(tmp_path, open_experiments):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        screen.export_dir = blocker / "sub"
        await pilot.press("e", "enter")
        await pilot.pause()
        msg = app.screen.message  # the folder prompt stays open with the reason under it
        assert msg.startswith("export: cannot write to") and "a-file" in msg


async def test_d_cycles_the_histogram_through_every_d_k(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        shown = []
        hist = screen.query_one("#var-hist")
        original = hist.show

        def spy(dots, d_k, bins=40):
            shown.append((d_k, len(dots)))
            original(dots, d_k, bins)

        hist.show = spy
        for _ in range(4):
            await pilot.press("d")
        assert [d for d, _ in shown] == [512, 128, 4, 64]
        assert all(n == 5000 for _, n in shown)


@pytest.mark.slow
async def test_pages_scroll_on_a_small_terminal(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_experiments(pilot)
        main = screen.query_one("#exp-main")
        await pilot.press("pagedown")
        await pilot.pause()
        assert main.scroll_offset.y > 0


@pytest.mark.slow
async def test_tab_into_an_input_type_enter_runs_escape_leaves(open_experiments):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot)
        await pilot.press("tab")
        assert app.focused is screen.query_one("#in-d_k")
        await pilot.press("end", "backspace", "backspace", "backspace", "3", "2", "enter")
        assert app.focused is screen.query_one("#in-d_k")  # enter runs and stays in the field
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert screen.var_rows[-1]["d_k"] == 32
        await pilot.press("tab", "escape")
        assert app.focused is None
        frame = screen.frame
        await pilot.press("right")  # a key again, not typing
        assert screen.frame == frame + 1

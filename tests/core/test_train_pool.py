"""core/train/pool.py: runs in child processes give run()'s figures exactly, in order, and cancel()
or stop() kills the children (no process is left behind)."""

from __future__ import annotations

import signal

import pytest

from attn_tui.core.train import compare, pool, seeds
from attn_tui.core.train.run import Config, run

SMALL = Config(steps=20, log_every=5)


def test_run_all_in_processes_is_run_here_bit_for_bit():
    configs = [SMALL.with_(d_k=d, scaled=s, seed=seed) for d in (2, 32) for s in (True, False) for seed in (0, 5)]
    assert pool.run_all(configs, 3) == [run(c) for c in configs]  # == on every float, list and None


def test_compare_all_and_compare_seeds_are_the_same_with_jobs():
    assert compare.compare_all(SMALL, (4, 8), jobs=2) == compare.compare_all(SMALL, (4, 8))
    assert seeds.compare_seeds(SMALL, range(3), (4, 8), jobs=2) == seeds.compare_seeds(SMALL, range(3), (4, 8))


def test_plan_and_rows_of_are_compare_all():
    plan = compare.plan(SMALL, (4, 8))
    assert [(c.d_k, c.scaled) for c in plan] == [(4, True), (4, False), (8, True), (8, False)]
    assert compare.rows_of((4, 8), [run(c) for c in plan]) == compare.compare_all(SMALL, (4, 8))


def test_results_come_as_they_finish_and_the_children_return():
    configs = [SMALL.with_(d_k=d) for d in (2, 4, 8, 16, 64)]
    runs = pool.Runs(configs, 2)
    got = dict(runs.results())
    assert sorted(got) == list(range(5)) and got[3] == run(configs[3])
    assert runs.done == 5 and not runs.cancelled
    assert [p.returncode for p in runs.processes] == [0, 0]  # told "no more", they returned


def test_cancel_kills_the_children_and_ends_results():
    runs = pool.Runs([Config(steps=100_000, d_k=d) for d in (4, 8, 16)], 2)
    it = runs.results()
    assert all(p.poll() is None for p in runs.processes)
    runs.cancel()  # as the screen does from the UI thread
    assert list(it) == []
    assert [p.returncode for p in runs.processes] == [-signal.SIGKILL] * 2


def test_stop_kills_the_children():
    runs = pool.Runs([Config(steps=100_000)] * 2, 2)
    assert list(runs.results(stop=lambda: True)) == [] and runs.cancelled
    assert [p.returncode for p in runs.processes] == [-signal.SIGKILL] * 2


def test_a_run_that_fails_in_a_child_is_one_line_here():
    bad = Config(steps=5)
    object.__setattr__(bad, "optimizer", "rmsprop")  # past Config's check: run() raises in the child
    runs = pool.Runs([SMALL, bad], 2)
    with pytest.raises(RuntimeError, match=r"optimizer: unknown 'rmsprop'") as err:
        list(runs.results())
    assert "\n" not in str(err.value)
    assert all(p.returncode is not None for p in runs.processes)

"""core.machine: the CPUs, and the threads a computation shared out by NumPy takes under a load."""

from __future__ import annotations

import pytest

from attn_tui.core import machine
from attn_tui.report import summary


def test_cpus_is_at_least_one():
    assert machine.cpus() >= 1


@pytest.mark.parametrize(
    ("cores", "load", "most", "want"),
    [(2, 0.2, 4, 2), (2, 1.6, 4, 2), (2, 2.0, 4, 1), (2, 2.7, 4, 1), (2, 6.0, 4, 1), (8, 6.5, 4, 3),
     (8, 1.0, 4, 4), (8, 1.0, 8, 8), (8, 0.0, 2, 2), (1, 0.0, 4, 1)],
)  # fmt: skip
def test_threads_while_cores_are_idle(cores, load, most, want, monkeypatch):
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(machine.os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert machine.spare_threads(most) == want
    assert summary.workers() == machine.spare_threads(summary.MAX_WORKERS)

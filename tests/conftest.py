"""Shared fixtures of every layer: a pinned environment, a state folder of the test's own, and the
core's helpers. Nothing here imports Textual, so the core and report tests run without it
(tests/test_house.py runs a core module with textual unimportable); the app's fixtures are in
tests/tui/app_fixtures.py, which the conftest.py of tests/tui and tests/snapshots import.

Snapshots must not depend on the user's terminal: NO_COLOR and TEXTUAL_THEME are
removed for every test, and nothing in the explorer blinks. Tests that run the app as
users do (NO_COLOR=1, TERM=xterm) set those variables themselves.
"""

from __future__ import annotations

import os as _os

import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.scenario import Scenario

# Under pytest-xdist (-n auto: a worker per core, and one more) each worker's BLAS gets one thread: two workers with
# two OpenBLAS threads each would be four busy threads on two cores. (The explorer itself runs its
# BLAS on one thread too, cli.explorer.run.) A test that needs more threads sets them itself.
if _os.environ.get("PYTEST_XDIST_WORKER"):
    from threadpoolctl import threadpool_limits as _threadpool_limits

    _threadpool_limits(1)
    # execnet starts each worker with COLUMNS=80 LINES=24 in its environment; a terminal does not. Every
    # explorer a test starts in a pty inherits them, and Textual's driver reads its size from them first
    # (shutil.get_terminal_size): an 80x24 layout in a 120x40 pty, so clicks hit other cells.
    for _var in ("COLUMNS", "LINES"):
        _os.environ.pop(_var, None)


def pytest_xdist_auto_num_workers(config):
    """-n auto (addopts): one worker more than the CPUs. A drive of the app spends part of its time
    waiting on the event loop and on subprocesses, so as many workers as CPUs left them about 65 % busy:
    the fast lane took 2 min 7 s on 2 workers and 1 min 45 s on 3 on this idle 2-core machine."""
    cpus = len(_os.sched_getaffinity(0)) if hasattr(_os, "sched_getaffinity") else (_os.cpu_count() or 1)
    return cpus + 1


@pytest.fixture(autouse=True)
def pinned_env(monkeypatch):
    for var in ("NO_COLOR", "TEXTUAL_THEME", "TEXTUAL_ANIMATIONS"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def state_home(monkeypatch, tmp_path_factory):
    """Kept sessions (core/session_store.py) go to a folder of the test's own, never the user's
    ~/.local/state; the explorer run as a subprocess inherits it."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


@pytest.fixture
def float16_knob():
    def float16_knob() -> Scenario:
        """The review's steps: float16, X[t2, verb] = 9000, then `+` twelve times."""
        s = builtin("lesson-pipeline")
        X = s.X.copy()
        X[1, 1] = 9000
        return s.with_(X=X, dtype="float16", c=1.1**12)

    return float16_knob


@pytest.fixture
def tiles_computed(monkeypatch):
    """tiles_computed(m): how many tiles (or direct row reads) LazyMatrix ``m`` computed, for the
    matrices built while the test runs: each call of the function it computes them with, counted."""
    from attn_tui.core.lazy_matrix import LazyMatrix

    counts: dict = {}
    init = LazyMatrix.__init__

    def counting_init(self, shape, dtype, fn, *args, **kw):
        def counted(*where):
            tile = fn(*where)
            counts[self] += 1  # under the matrix's lock, as every call of fn is
            return tile

        counts[self] = 0
        init(self, shape, dtype, counted, *args, **kw)

    monkeypatch.setattr(LazyMatrix, "__init__", counting_init)
    return counts.__getitem__


@pytest.fixture
def read_csv():
    """read_csv(path): the numbers of a CSV the export wrote (core.export: labels first), as float64."""
    import csv

    import numpy as np

    def read(path):
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))[1:]
        return np.array([[float(x) for x in r[1:]] for r in rows], dtype=np.float64)

    return read


@pytest.fixture(scope="session")
def stall_runs():
    """The unscaled training runs at each d_k of compare.STALL_DKS, trained to COMPARE_STEPS:
    {d_k: Trainer} (the stall's figures: tests/core/test_train_stall.py, tests/tui/test_train_stall_text.py)."""
    from attn_tui.core.train import compare
    from attn_tui.core.train.run import Config, Trainer

    def trained(d_k: int) -> Trainer:
        t = Trainer(Config(d_k=d_k, scaled=False, steps=compare.COMPARE_STEPS))
        while not t.done:
            t.step()
        return t

    return {d: trained(d) for d in compare.STALL_DKS}


# -- .ci/run's oracle step: with torch installed, a torch test that skips is a failure ---------
# ATTN_REQUIRE_TORCH=1 (set by .ci/run only after the README's command passed without torch and
# torch was installed on top): a skip whose reason names torch fails the run, so the oracle cannot
# silently not run. Without the variable (a newcomer, the README's command) those tests skip.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _os.environ.get("ATTN_REQUIRE_TORCH") and "torch" in str(report.longrepr).lower():
        report.outcome = "failed"
        report.longrepr = f"ATTN_REQUIRE_TORCH is set but the test skipped: {report.longrepr}"


# -- hypothesis: deterministic in CI ----------------------------------------------------
# CI (the CI variable set) runs the "ci" profile: derandomised (the same examples every run,
# no example database), no deadline, no too_slow health check on a busy 2-core machine.
# Every input hypothesis ever found is an explicit @example beside its test.
# Elsewhere the default profile keeps exploring; HYPOTHESIS_PROFILE=ci reproduces CI.
from hypothesis import HealthCheck as _HealthCheck
from hypothesis import Phase as _Phase
from hypothesis import settings as _hyp_settings

_hyp_settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=[_HealthCheck.too_slow]
)
# scripts/mutation.sh: as in CI, and a failure is reported unshrunk (a mutant needs one failure, fast)
_hyp_settings.register_profile(
    "mutation", _hyp_settings.get_profile("ci"), phases=[_Phase.explicit, _Phase.reuse, _Phase.generate]
)
_hyp_settings.load_profile(_os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _os.environ.get("CI") else "default"))


# -- scripts/mutation.sh: a mutant that loops without end fails its first test in seconds ----
# Under ATTN_MUTATION (set by scripts/mutation.sh only) each test may use 10x the wall time it
# took in mutmut's clean run (mutmut-stats.json, written before any mutant runs) + 10 s of CPU;
# past that it fails as "endless" (a BaseException, so no `except Exception` swallows it).
# Without the file (mutmut's clean run itself) or outside mutation runs nothing is limited.
if _os.environ.get("ATTN_MUTATION"):
    import json as _json
    import signal as _signal

    class EndlessLoop(BaseException):
        pass

    def _endless(signum, frame):
        raise EndlessLoop("more than 10x this test's CPU time in mutmut's clean run: an endless loop")

    _clean_times: dict[str, float] = {}

    @pytest.fixture(autouse=True)
    def _cpu_budget(request):
        stats = request.config.rootpath / "mutmut-stats.json"
        if not _clean_times and stats.exists():
            _clean_times.update(_json.loads(stats.read_text())["duration_by_test"])
        clean = _clean_times.get(request.node.nodeid)
        if clean is None:
            yield
            return
        previous = _signal.signal(_signal.SIGPROF, _endless)
        _signal.setitimer(_signal.ITIMER_PROF, 10 * clean + 10)
        try:
            yield
        finally:
            _signal.setitimer(_signal.ITIMER_PROF, 0)
            _signal.signal(_signal.SIGPROF, previous)

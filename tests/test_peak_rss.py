"""The memory budgets' measure (tests/peak_rss.py) is the child's own: a parent that has touched a lot of
memory before starting the child does not raise it, as it raised ru_maxrss (675 MiB on the heads screen's
test after the long lane's other tests, under 480 alone)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tests.peak_rss import MIB, PRINT_PEAK, printed_peak

TOUCHED = 400 * MIB
CHILD = f"import resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)\n{PRINT_PEAK}\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/status is Linux's")
def test_a_childs_peak_is_its_own_not_its_parents():
    held = np.ones(TOUCHED // 8)  # every page touched: the parent's peak is at least this
    try:
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True).stdout
    finally:
        del held
    maxrss, own = int(out.split()[0]), printed_peak(out)
    # a bare interpreter: about 13 MiB; ru_maxrss, what the budgets read before, said 727 MiB after 700 touched
    assert own < 100 * MIB, (own / MIB, maxrss / MIB)

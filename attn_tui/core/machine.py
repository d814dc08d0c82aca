"""The machine a computation runs on: its CPUs, and how many threads a computation of row blocks or
heads should take now (the train pool's processes, the report's summary, the capture's check)."""

from __future__ import annotations

import math
import os


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def spare_threads(most: int) -> int:
    """Threads for work that NumPy shares out (its products and exponentials release the GIL):
    while the 1-minute load average leaves some of this process's cores idle, one more than the idle
    ones (the load counts this process too once it has run a while), up to the cores and ``most``;
    else 1. On the 2-core development machine the report's summary at T = 16384 took 0.95 s on 2
    threads against 1.43 s on 1 at a load of 1.6, but 2.16 s against 1.57 s at 2.7 and 4.2 s
    against 3.5 s at 5-6 (a thread waits for the GIL its preempted partner holds)."""
    cores = cpus()
    spare = cores - os.getloadavg()[0] if hasattr(os, "getloadavg") else cores
    return max(1, min(cores, most, math.ceil(spare) + 1)) if spare > 0 else 1

"""A child interpreter's own peak resident memory, for the memory budgets (issue 52: no file under 1 MB
takes 500 MB on any door or screen).

Not ``ru_maxrss``: a child that subprocess starts reports its parent's peak there. It is started by vfork,
then exec, and Linux keeps the high-water mark of the memory it had across the exec. A child of 13 MiB read
727 MiB after its parent had touched 700 MiB (18 MiB when started by fork, with a preexec_fn), and the heads
screen's test read 675 MiB in the long lane, where the pytest process had itself reached 676 MiB by then.
``VmHWM`` of /proc/self/status is the new image's own high-water mark (tests/test_peak_rss.py).
"""

from __future__ import annotations

MIB = 2**20
BUDGET = 500 * 10**6  # issue 52: no file under 1 MB takes more than 500 MB on any door or screen

# the line a child script ends with: its own peak, in bytes, as the last word of its stdout
PRINT_PEAK = (
    "print(next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:')) * 1024)"
)


def printed_peak(stdout: str) -> int:
    """The peak a child script printed with PRINT_PEAK (the last word of its stdout), in bytes."""
    return int(stdout.split()[-1])

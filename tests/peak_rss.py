"""A child interpreter's own peak resident memory, for the memory budgets (issue 52: no file under 1 MB
takes 500 MB on any door or screen).

Not ``ru_maxrss``: a child that subprocess starts (vfork, then exec) reports its parent's peak there, since
Linux keeps the old image's high-water mark across the exec. Under pytest that was the pytest process's
peak: a child of 13 MiB read 727 MiB after its parent had touched 700 MiB (tests/test_peak_rss.py), and the
heads screen's test read 675 MiB after the long lane's earlier tests ran in the same process. ``VmHWM`` of
/proc/self/status is the new image's own high-water mark.
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

"""attn-tui: scaled dot-product attention, taken apart live in a terminal."""

import os

# Before NumPy loads: the matrices here are small, and OpenBLAS's worker threads spin on
# every call (T = 256: ~160 ms of CPU per keypress with them, ~35 ms without). A user's
# own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"

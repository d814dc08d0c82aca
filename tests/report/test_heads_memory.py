"""Issue 44 item 1: a tiny compressed heads file of 16,384 tokens cannot take gigabytes. The mask
blocks the heads share were cached by count (256 blocks of 36 MiB: 2.3 GiB after one head); they are
cached by bytes now (core/byte_cache.py). Long work says how far it got on a terminal and stops on
Ctrl-C with one line and exit 130."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from attn_tui.core.byte_cache import ByteCache
from attn_tui.core.heads import source
from attn_tui.core.heads.multihead_write import save_heads
from tests.tui.ptyrun import PtyApp

MIB = 2**20
BUDGET = 400 * MIB  # the README's promise for a 16,384-token heads file of any head count


def zeros_file(path, heads: int, T: int, A: bool = False):
    """A compressed .npz of `heads` heads x T tokens, d_k = 1, every number 0 (and the model's own A,
    (1, heads, T, T), when asked): a few KB on disk."""
    z = np.zeros((1, heads, T, 1))
    own = np.zeros((1, heads, T, T), np.float32) if A else None
    return save_heads(path, z, z[:, :1], z[:, :1], A=own, compressed=True, kv_head=[0] * heads, mask="causal")


def peak_rss(args) -> tuple[int, subprocess.CompletedProcess]:
    """(the peak resident bytes of `python -m attn_tui ARGS`, its result), measured by a parent of its own
    (RUSAGE_CHILDREN of a fresh interpreter whose only child it is)."""
    code = (
        "import resource, subprocess, sys; "
        f"r = subprocess.run([sys.executable, '-m', 'attn_tui', *{list(args)!r}], capture_output=True, text=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(r.returncode); "
        "sys.stdout.write(r.stderr[:300])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=900)
    kib, rc, *err = out.stdout.split("\n", 2)
    return int(kib) * 1024, subprocess.CompletedProcess(args, int(rc), "", "".join(err))


def test_the_cache_holds_bytes_not_entries():
    cache, made = ByteCache(10 * 8), []

    def make(n):
        made.append(n)
        return np.zeros(n)

    for n in (4, 4, 4):  # 32 bytes each: two fit in 80
        cache.get(("a", len(made)), lambda n=n: make(n))
    assert cache.held <= cache.max_bytes and len(cache) == 2
    big = cache.get("big", lambda: make(11))  # larger than the cache: handed back, never kept
    assert big.shape == (11,) and "big" not in [k for k in cache._items] and cache.held <= cache.max_bytes
    assert cache.get(("a", 2), lambda: make(99)).shape == (4,)  # a hit: not made again


def test_the_mask_blocks_of_a_long_causal_head_are_not_kept_past_the_budget():
    source.MASKS_KEPT.clear()
    for r0 in range(0, 16384, 256):
        blocked, M = source.mask_rows("causal", None, r0, r0 + 256, 16384)
        assert blocked.shape == M.shape == (256, 16384) and M[0, r0 + 1] == -1e9 and M[0, r0] == 0
    assert source.MASKS_KEPT.held <= source.MASK_CACHE_BYTES


@pytest.mark.long
@pytest.mark.slow
def test_heads_on_a_16384_token_file_stays_under_the_budget(tmp_path):
    path = zeros_file(tmp_path / "long.npz", heads=1, T=16384)
    assert path.stat().st_size < 8192
    peak, r = peak_rss(["heads", str(path)])
    assert r.returncode == 0, r.stderr
    assert peak < BUDGET, f"peak {peak / MIB:.0f} MiB"


@pytest.mark.long
@pytest.mark.slow
def test_heads_with_a_stored_A_reads_it_a_few_heads_at_a_time(tmp_path):
    """16 heads of a stored 2048 x 2048 A are 512 MiB in float64: compared with the computed A a
    few heads at a time (source.OWN_A_BYTES), not read whole."""
    path = zeros_file(tmp_path / "own.npz", heads=16, T=2048, A=True)
    assert path.stat().st_size < 2**20
    peak, r = peak_rss(["heads", str(path)])
    assert r.returncode == 0, r.stderr
    assert peak < BUDGET, f"peak {peak / MIB:.0f} MiB"


@pytest.mark.slow
def test_ctrl_c_stops_heads_with_one_line_and_exit_130(tmp_path):
    path = zeros_file(tmp_path / "many.npz", heads=64, T=4096)
    with PtyApp(["heads", str(path)]) as app:
        app.shows("heads read: 1 of 64")  # the progress line, on the terminal
        app.send(b"\x03")
        assert app.exit_code() == 130
        raw = app.raw.decode(errors="replace").replace("\x1b[K", "").replace("\r", "\n")
        said = [line for line in raw.splitlines() if line.strip()]
        assert said[-1] == "attn-tui: interrupted (Ctrl-C); nothing was printed", said[-3:]
        assert "Traceback" not in app.raw.decode(errors="replace")

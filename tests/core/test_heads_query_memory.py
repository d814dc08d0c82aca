"""Issue 44 item 1 on the token view's path: where one query looks in every head of a layer
(query_top.layer_rows) reads a head at a time. It stacked every head's Q and K first: for 64 heads of
4096 tokens x d_k 256 that was 1 GiB in float64 from a file of a few hundred KB. Measured with
tracemalloc (NumPy reports its arrays to it), not time."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from attn_tui.core.heads import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.query_top import layer_rows

MIB = 2**20


@pytest.mark.slow
@pytest.mark.long  # the long lane (docs/TESTING.md)
def test_one_query_in_every_head_reads_a_head_at_a_time(tmp_path):
    H, T, d = 64, 4096, 256
    Q = np.zeros((1, H, T, d), np.float16)  # calloc'd: no page is touched until written
    K = np.zeros((1, 1, T, d), np.float16)
    path = save_heads(tmp_path / "wide.npz", Q, K, K, compressed=True, kv_head=[0] * H)
    src = open_heads(str(path))
    tracemalloc.start()
    try:
        A, seen = layer_rows(src, 0, 5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert A.shape == (H, T) and np.allclose(A[:, :6], 1 / 6) and not A[:, 6:].any()  # causal, all scores 0
    assert peak < 64 * MIB, f"peak {peak / MIB:.0f} MiB"  # one head's Q and K in float64: 16 MiB


@pytest.mark.slow
@pytest.mark.long  # the long lane (docs/TESTING.md)
def test_the_combine_holds_a_group_of_heads_not_all(tmp_path, monkeypatch):
    """combine() held every head's Q, K, V at once (64 heads x 2048 tokens x d 64: 192 MiB in float64);
    it holds as many as combine.COMBINE_BYTES allow (21 of them here), and gives the same figures."""
    import importlib

    combine = importlib.import_module("attn_tui.core.heads.combine")
    H, T, d = 64, 2048, 64
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((1, H, T, d)).astype(np.float16)
    K, V = (rng.standard_normal((1, 1, T, d)).astype(np.float16) for _ in range(2))
    W_O = rng.standard_normal((1, H * d, 8)).astype(np.float16)
    src = open_heads(str(save_heads(tmp_path / "combine.npz", Q, K, V, W_O=W_O, kv_head=[0] * H)))

    def peak_of():
        tracemalloc.start()
        try:
            return combine.combine(src, 0), tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    grouped, peak = peak_of()
    monkeypatch.setattr(combine, "COMBINE_BYTES", 2**40)  # every head at once, as before
    whole, whole_peak = peak_of()
    assert grouped.holds and grouped.output is None  # above 512 rows no output is kept
    assert whole.holds and np.isclose(grouped.tolerance, whole.tolerance, rtol=1e-12)  # |O| |W_O| sums: same terms
    assert peak < whole_peak - (H * 3 * T * d * 8 - combine.COMBINE_BYTES) / 2, (peak / MIB, whole_peak / MIB)

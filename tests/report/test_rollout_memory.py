"""Issue 52 items 3 and 4: rollout reads one head at a time, and one bound holds its rows.

Item 3: `heads FILE --rollout --query 1` held every head of a layer in float64 (its Q and K, for
each row block): 16 heads x 16,384 tokens x d_k 256 took 1.5 GB; 8 such heads took 1 GB here. Now
one head's Q, K and a block of its A are held at a time. The file is sparse (a few KB on disk), so its
heads are d_k 64: a sparse head of d 256 is refused now, more than its bytes on disk back
(core/reader_sizes.reader_budget); 32 heads of d 64 held at once are 512 MiB of Q and K.
Item 4: --query named any number of rows, duplicates too, and so sidestepped the 512-token cap on R
whole (every row of a 16,384-token file asked for 2 GiB). Rows x T is now at most R whole's cells
at 512 tokens, for the whole R and for rows alike."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads import rollout as ro
from tests.core.badheads import sparse_heads
from tests.core.test_heads_readings import a_source
from tests.report.test_heads_memory import BUDGET, MIB, peak_rss


def test_rollout_of_one_row_of_many_heads_stays_under_the_budget(tmp_path):
    path = sparse_heads(tmp_path / "wide.safetensors", L=1, H=32, T=16384, d=64)
    peak, out = peak_rss(["heads", str(path), "--rollout", "--query", "1"])
    assert out.returncode == 0, out.stderr
    assert peak < BUDGET, f"peak {peak / MIB:.0f} MiB"


def test_rows_times_tokens_is_bounded_by_the_whole_rs_cells(monkeypatch):
    src, _ = a_source(0)  # T = 9
    monkeypatch.setattr(ro, "MAX_CELLS", 2 * src.T)  # two rows' worth
    assert ro.rollout_rows(src, [0, 8]).shape == (2, src.T)
    for rows in ([0, 4, 8], [3, 3, 3]):  # duplicates count as rows
        with pytest.raises(ValueError, match=r"^--query: 3 rows of 9 tokens; rollout gives at most 18 numbers"):
            ro.rollout_rows(src, rows)
    with pytest.raises(ValueError, match="--query"):
        ro.rollout(src)  # R whole is its T rows: the same bound


def test_every_row_of_a_long_file_is_refused_in_one_line(tmp_path):
    path = sparse_heads(tmp_path / "long.safetensors", L=1, H=1, T=16384)
    every = ",".join(map(str, range(1, 16385)))
    peak, out = peak_rss(["heads", str(path), "--rollout", "--query", every])
    assert out.returncode == 2
    line = out.stderr.strip()
    assert "\n" not in line and "16384 rows of 16384 tokens" in line and "16 rows at 16384 tokens" in line
    assert peak < 200 * MIB, f"peak {peak / MIB:.0f} MiB"
    assert np.isclose(ro.MAX_CELLS, 512 * 512)

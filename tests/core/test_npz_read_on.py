"""Issue 52 item 5: a compressed .npz's heads read in order decompress each member once. Each slice
opened its member afresh and seeked to its head, decompressing every head before it again: reading
the heads in order cost O(H²) (head 255 took 35x head 0). The bytes a member's stream hands out
(its own seeks included) are counted here."""

from __future__ import annotations

import zipfile

import numpy as np

from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.query_top import query_tops

H, T, D = 32, 512, 4


def test_every_heads_row_decompresses_each_member_about_once(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((1, H, T, D)), rng.standard_normal((1, H // 4, T, D))  # 4 heads a K/V head
    path = save_heads(tmp_path / "h.npz", Q, K, K, compressed=True, mask="causal")
    src = open_heads(str(path))
    seen = [0]
    read = zipfile.ZipExtFile.read

    def counted(self, n=-1):
        out = read(self, n)
        seen[0] += len(out)
        return out

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counted)
    tops = query_tops(src, T - 1)
    assert len(tops) == H
    members = Q.nbytes + K.nbytes  # what the heads' Q and K hold: each read once
    assert seen[0] <= members + 4096, f"{seen[0]:,} bytes decompressed for {members:,}"
    # the same answers as slices read alone
    alone = open_heads(str(path))
    alone.read.streams = None
    assert [t.top for t in query_tops(alone, T - 1)] == [t.top for t in tops]


def test_a_corrupt_member_is_one_line_each_time_it_is_read(tmp_path):
    """A member whose deflated bytes are damaged: each read is the reader's one line naming the file,
    the second as the first (the broken stream is not kept for the next slice)."""
    rng = np.random.default_rng(1)
    Q = rng.standard_normal((1, H, T, D))
    path = save_heads(tmp_path / "h.npz", Q, Q, Q, compressed=True, mask="causal")
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("Q.npy")
    raw = bytearray(path.read_bytes())
    middle = info.header_offset + 64 + info.compress_size // 2
    raw[middle : middle + 64] = bytes(64)
    path.write_bytes(bytes(raw))
    src = open_heads(str(path))
    for _ in range(2):
        try:
            query_tops(src, T - 1)
        except ValueError as exc:
            assert str(path) in str(exc) and "\n" not in str(exc), exc
        else:
            raise AssertionError("the damaged member was read without a word")

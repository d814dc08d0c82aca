"""Issue 52 item 5: a compressed .npz's heads read in order decompress each member once. Each slice
opened its member afresh and seeked to its head, decompressing every head before it again: reading
the heads in order cost O(H²) (head 255 took 35x head 0). The bytes a member's stream hands out
are counted here (the Inflater's decompressing step, zipfile's stream for the slices read alone)."""

from __future__ import annotations

import zipfile

import numpy as np

from attn_tui.core.heads import inflater
from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.query_top import query_tops

H, T, D = 32, 512, 4


def _counted(monkeypatch) -> list:
    """[bytes decompressed so far], counted at the Inflater's one decompressing step."""
    seen = [0]
    inflate = inflater.Inflater._inflate

    def counted(self, most):
        out = inflate(self, most)
        seen[0] += len(out)
        return out

    monkeypatch.setattr(inflater.Inflater, "_inflate", counted)
    return seen


def _file(tmp_path):
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((1, H, T, D)), rng.standard_normal((1, H // 4, T, D))  # 4 heads a K/V head
    return save_heads(tmp_path / "h.npz", Q, K, K, compressed=True, mask="causal"), Q, K


def test_every_heads_row_decompresses_each_member_about_once(tmp_path, monkeypatch):
    path, Q, K = _file(tmp_path)
    src = open_heads(str(path))
    seen = _counted(monkeypatch)
    tops = query_tops(src, T - 1)
    assert len(tops) == H
    members = Q.nbytes + K.nbytes  # what the heads' Q and K hold: each read once
    assert seen[0] <= members + 4096, f"{seen[0]:,} bytes decompressed for {members:,}"
    # the same answers as slices read alone (zipfile's own stream, opened for each)
    alone = open_heads(str(path))
    alone.read.streams = None
    assert [t.top for t in query_tops(alone, T - 1)] == [t.top for t in tops]


def test_heads_read_last_to_first_resume_from_a_checkpoint(tmp_path, monkeypatch):
    """Rollout reads its layers last to first: each read behind resumes from the checkpoint before it,
    not from the member's first byte (O(H) of the member, not O(H²))."""
    path, Q, _ = _file(tmp_path)
    src = open_heads(str(path))
    monkeypatch.setattr(inflater, "SPACING", 4096)
    seen = _counted(monkeypatch)
    for h in reversed(range(H)):
        np.testing.assert_array_equal(src.read("Q", 0, h), Q[0, h])
    head = Q[0, 0].nbytes
    assert seen[0] <= Q.nbytes + H * (head + 4096), f"{seen[0]:,} bytes decompressed for {Q.nbytes:,}"


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


def test_the_inflater_reads_any_slice_as_the_data_holds_it(tmp_path, monkeypatch):
    """Forward, backward, across checkpoints, up to and past the end: the bytes zipfile gives."""
    from attn_tui.core.heads.file_headers import member_offset

    monkeypatch.setattr(inflater, "SPACING", 1000)
    rng = np.random.default_rng(2)
    data = (rng.integers(0, 4, 50_000, dtype=np.uint8).tobytes() + bytes(70_000)) * 2  # some of it zeros
    path = tmp_path / "m.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("m.npy", data)
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("m.npy")
    f = inflater.Inflater(path, member_offset(path, info), info.compress_size, info.file_size)
    try:
        for at, n in [(0, 10), (239_990, 10), (5, 3000), (120_000, 50_000), (1, 1), (239_000, 5000), (0, 240_000)]:
            assert f.read(at, n) == data[at : at + n], (at, n)
        assert len(f.marks) <= inflater.MARKS
    finally:
        f.close()

"""The heads next to the one shown are kept ready (heads_nav._READY) up to KEEP_BYTES of their arrays,
not only KEEP of them: eight heads of 16,384 tokens x d_k 256 in float64 were 768 MiB kept for a
sparse file of a few KB (issue 52: no file under 1 MB takes 500 MB on any screen)."""

from __future__ import annotations

from attn_tui.core.heads.door import open_heads
from attn_tui.tui import heads_nav
from tests.core.badheads import sparse_heads


def test_the_ready_heads_are_bounded_by_bytes(tmp_path, monkeypatch):
    src = open_heads(str(sparse_heads(tmp_path / "wide.safetensors", L=1, H=6, T=2048, d=64)))
    _, ref = heads_nav.first_head(src, "wide")
    one = 3 * 2048 * 64 * 8  # Q, K, V of a head in float64
    monkeypatch.setattr(heads_nav, "KEEP_BYTES", 2 * one + 1)
    heads_nav._READY.clear()
    for h in range(6):
        heads_nav.scenario_of(heads_nav.moved(ref, 0, h))
    kept = [v[1] for v in heads_nav._READY.values()]
    assert len(kept) == 2 and sum(heads_nav._nbytes(s) for s in kept) <= 2 * one + 1
    assert [k[2] for k in heads_nav._READY] == [4, 5]  # the newest stay

"""The heads screen's one pass per head: the readings equal layer_readings', the picture is A pooled."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads import head_scenario, layer_readings, open_heads
from attn_tui.core.heads.layer_view import edges, head_view, layer_view
from attn_tui.core.heads.multihead_write import save_heads


@pytest.fixture(scope="module")
def demo():
    return open_heads("induction-demo", tokens="q w e r q w e r")


def test_readings_are_layer_readings(demo):
    for layer in range(demo.n_layers):
        got = [v.readings for v in layer_view(demo, layer)]
        assert got == layer_readings(demo, layer)


def test_thumb_is_A_when_it_fits(demo):
    v = head_view(demo, 1, 2, bins=16)  # T = 8 <= 16: one position a bin
    A = head_scenario(demo, 1, 2).run().A
    np.testing.assert_allclose(v.thumb, A, atol=1e-12)


def test_thumb_pools_by_the_loop_definition():
    src = open_heads("induction-demo")  # T = 20
    v = head_view(src, 0, 0, bins=6)
    A = head_scenario(src, 0, 0).run().A
    re, ce = v.row_edges, v.col_edges
    want = np.array(
        [
            [np.mean([A[t, ce[b] : ce[b + 1]].sum() for t in range(re[a], re[a + 1])]) for b in range(len(ce) - 1)]
            for a in range(len(re) - 1)
        ]
    )
    np.testing.assert_allclose(v.thumb, want, atol=1e-12)
    np.testing.assert_allclose(v.thumb.sum(axis=1), 1.0)


@pytest.mark.parametrize(("n", "bins"), [(20, 6), (7, 16), (512, 9), (1, 4)])
def test_edges_cover_every_position_once(n, bins):
    """Every bin holds the same k = ⌈n/bins⌉ positions (the last at most k): a cell's token count is
    one number the screen can say; no more than ``bins`` bins."""
    e = edges(n, bins)
    k = -(-n // bins)
    assert e[0] == 0 and e[-1] == n and len(e) - 1 <= bins
    assert np.all(np.diff(e)[:-1] == k) and 1 <= np.diff(e)[-1] <= k


def test_a_file_with_padding_nan_rows(tmp_path):
    """An additive mask that blocks every key of row 1 makes it NaN: left out of its bin."""
    rng = np.random.default_rng(1)
    L, H, T, d = 1, 2, 5, 3
    Q, K, V = (rng.standard_normal((L, H, T, d)) for _ in range(3))
    M = np.zeros((L, T, T))
    M[0, 0, :] = -np.inf
    path = tmp_path / "pad.npz"
    save_heads(str(path), Q, K, V, M=M, mask="additive")
    src = open_heads(str(path))
    v = head_view(src, 0, 1, bins=16)
    assert np.isnan(v.thumb[0]).all()
    np.testing.assert_allclose(v.thumb[1:].sum(axis=1), 1.0)

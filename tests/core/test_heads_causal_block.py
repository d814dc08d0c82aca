"""core.heads.source: a causal block's scores masked on the diagonal tile alone, bit for bit as the
whole block's mask."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("rows", [1, 7, 64])
def test_a_causal_block_is_the_whole_mask_added_bit_for_bit(rows):
    """source.causal_block adds the causal mask to the diagonal tile only (the keys every row of the
    block sees would get + 0): A and the seen keys equal, bit for bit, the whole block's mask added
    (mask_rows over the block's full width, as every other mask kind is), for every block of a head,
    with w as the checks pass it (the seen width) and without (every key)."""
    from attn_tui.core.attention import softmax
    from attn_tui.core.heads.source import causal_block, mask_rows

    rng = np.random.default_rng(rows)
    T, d = 150, 8
    Q, K = rng.normal(size=(3, T, d)), rng.normal(size=(3, T, d))
    for r0 in range(0, T, rows):
        r1 = min(T, r0 + rows)
        for width in (r1, T):
            S = Q[:, r0:r1] @ np.swapaxes(K[:, :width], -1, -2) * 0.3
            blocked, M = mask_rows("causal", None, r0, r1, width)
            want = softmax(S + M)
            got, seen = causal_block(S.copy(), r0, r1, width)
            assert np.array_equal(got, want) and np.array_equal(seen, ~blocked), (r0, width)

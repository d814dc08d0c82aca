"""Issue 51 item 2: rollout renormalises a query row that sees no key, as Abnar & Zuidema do.

In an additive-mask file a padded token's query row is fully masked (its A row is NaN); counted as 0
in the heads' mean and never renormalised, its row of Ã summed to ½ and R's rows to 0.25-0.98, while
the text said "each row sums to 1". Now that row of Ã is e_t (the renormalised Ā + I of their code):
the position passes itself on. R is checked against a loop over layers written here from that
definition, and each row of R sums to 1 (rows and R whole, the library and the command)."""

from __future__ import annotations

import json

import numpy as np

from attn_tui import cli
from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.rollout import rollout, rollout_rows

L, H, T, D, PAD = 3, 2, 6, 3, 2  # token 3 (0-based 2) is padding
EPS = np.finfo(np.float64).eps


def padded_file(path):
    rng = np.random.default_rng(4)
    Q, K = rng.standard_normal((L, H, T, D)), rng.standard_normal((L, H, T, D))
    M = np.where(np.tril(np.ones((T, T), bool)), 0.0, -np.inf)
    M[:, PAD] = -np.inf  # no query reads the padded key
    M[PAD, :] = -np.inf  # and the padded query reads nothing: its A row is NaN
    path = save_heads(path, Q, K, K, M=np.stack([M] * L), mask="additive")
    return path, Q, K, M


def loop_rollout(Q, K, M):
    R = np.eye(T)
    for layer in range(L):
        tilde = np.zeros((T, T))
        for t in range(T):
            if np.all(np.isneginf(M[t])):
                tilde[t, t] = 1.0  # sees no key: e_t
                continue
            row = np.zeros(T)
            for h in range(H):
                s = np.array([Q[layer, h, t] @ K[layer, h, j] / np.sqrt(D) + M[t, j] for j in range(T)])
                e = np.exp(s - s.max())
                row += e / e.sum() / H
            tilde[t] = 0.5 * row
            tilde[t, t] += 0.5
        R = tilde @ R
    return R


def test_a_padded_query_row_passes_itself_on_and_every_row_sums_to_1(tmp_path, capsys):
    path, Q, K, M = padded_file(tmp_path / "padded.safetensors")
    src = open_heads(str(path))
    want = loop_rollout(Q, K, M)
    got = rollout(src)
    tol = 64 * T * EPS
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=tol)
    np.testing.assert_allclose(got[PAD], np.eye(T)[PAD], rtol=0, atol=tol)
    np.testing.assert_allclose(rollout_rows(src, [PAD, T - 1]), want[[PAD, T - 1]], rtol=0, atol=tol)
    assert cli.main(["heads", str(path), "--rollout", "--json"]) == 0
    R = np.array(json.loads(capsys.readouterr().out)["rollout"])
    np.testing.assert_allclose(R.sum(axis=1), 1.0, rtol=0, atol=tol)

"""The induction demo's figures quoted in docs/HEADS.md, recomputed from the shipped weights.

    PYTHONPATH=. python scripts/measure_induction_demo.py

The training curve stored with the weights, then every head's readings on 10 fresh repeated
sequences (n distinct letters then the same n, n from 4 to 16; numpy default_rng([seed, 2026]),
seeds 0-9, as tests/core/test_heads_model.py draws them): median over the sequences with the
min-max spread. Then layer 1's heads on a..h repeated 2, 3 and 4 times: `induction` (every earlier
copy), the latest copy only (the reading before issue 40), and TransformerLens's detector score
(the same pattern averaged over every row: ours x rows with an earlier copy / T).
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.heads.readings import FIELDS, head_readings, previous_occurrence
from attn_tui.core.models.induction import WEIGHTS, forward, repeated_sequences, shipped_model

LETTERS = "abcdefgh"


def main():
    with np.load(WEIGHTS) as z:
        curve = z["curve"]
        print(f"seed {int(z['seed'])}, {int(z['steps'])} Adam steps, batch {int(z['batch'])}, lr {float(z['lr']):g}")
    print("training loss (nats, mean of the 100 steps before):")
    print(
        "  "
        + ", ".join(f"{int(s)}: {v:.3g}" for s, v in curve if s in (100, 300, 500, 700, 900, 1000, 1500, 2000, 3000))
    )
    m = shipped_model()
    per = {}
    for seed in range(10):
        ids, n = repeated_sequences(np.random.default_rng([seed, 2026]), 1, m.n_ctx)
        ids = ids[0, : 2 * int(n[0])]
        f, T = forward(m, ids), 2 * int(n[0])
        seen = np.tril(np.ones((T, T), dtype=bool))
        for layer in range(m.n_layers):
            for h in range(m.n_heads):
                A = f.A[layer, h]
                r = head_readings(lambda r0, r1, A=A, seen=seen: (A[r0:r1], seen[r0:r1]), T, T, ids.tolist(), layer, h)
                per.setdefault((layer, h), []).append(r)
    print("layer head " + " ".join(f"{x:>22}" for x in FIELDS))
    for (layer, h), rs in per.items():
        cells = []
        for field in FIELDS:
            v = np.array([getattr(r, field) for r in rs], dtype=float)
            cells.append(f"{np.median(v):.2f} ({v.min():.2f}-{v.max():.2f})")
        print(f"{layer:>5} {h:>4} " + " ".join(f"{c:>22}" for c in cells))


def latest_copy_only(A, ids):
    """The reading before issue 40: mean A[t, j+1], j the latest earlier copy of token t."""
    prev = previous_occurrence(ids)
    rows = [t for t in range(len(ids)) if prev[t] >= 0]
    return float(np.mean([A[t, prev[t] + 1] for t in rows]))


def repeats():
    m = shipped_model()
    print("layer 1 on a..h repeated r times: induction | latest copy only | TransformerLens (every row)")
    for r in (2, 3, 4):
        ids = np.array([ord(c) - ord("a") for c in LETTERS * r])
        f, T = forward(m, ids), len(ids)
        seen = np.tril(np.ones((T, T), dtype=bool))
        cells = []
        for h in range(m.n_heads):
            A = f.A[1, h]
            rd = head_readings(lambda r0, r1, A=A, seen=seen: (A[r0:r1], seen[r0:r1]), T, T, ids.tolist(), 1, h)
            every_row = rd.induction * (T - len(LETTERS)) / T  # rows with an earlier copy: all but the first 8
            cells.append(f"H{h} {rd.induction:.2f} | {latest_copy_only(A, ids.tolist()):.2f} | {every_row:.2f}")
        print(f"  x{r}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
    repeats()

"""The induction demo's figures quoted in docs/HEADS.md, recomputed from the shipped weights.

    PYTHONPATH=. python scripts/measure_induction_demo.py

The training curve stored with the weights, then every head's readings on 10 fresh repeated
sequences (n distinct letters then the same n, n from 4 to 16; numpy default_rng([seed, 2026]),
seeds 0-9, as tests/core/test_heads_model.py draws them): median over the sequences with the
min-max spread.
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.heads.model import WEIGHTS, forward, repeated_sequences, shipped_model
from attn_tui.core.heads.readings import head_readings

FIELDS = ("mean_entropy_bits", "mean_ceiling_bits", "prev_token", "first_token", "self", "induction")


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


if __name__ == "__main__":
    main()

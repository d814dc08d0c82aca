"""The learned head as a Scenario the explorer opens: the probe sequence through W_Q, W_K, W_V."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..scenario import Scenario
from .task import symbol_name

if TYPE_CHECKING:
    from typing import Any


def learned_scenario(trainer: Any) -> Scenario:
    """Cross-attention: X = the probe's queries, Y = its keys (one-hot symbols), the trained
    W_Q, W_K and the fixed W_V; no mask (a query may read every key); scaled as trained."""
    X, Y, _target, q_labels, k_labels = trainer.probe
    p, cfg = trainer.params, trainer.config
    scale = "1/√d_k" if cfg.scaled else "unscaled"
    return Scenario(
        title=f"learned head: {cfg.task}, d_k = {cfg.d_k}, {scale}, step {trainer.step_count}, seed {cfg.seed}",
        tokens=tuple(q_labels),
        key_tokens=tuple(k_labels),
        features=tuple(symbol_name(i) for i in range(X.shape[1])),
        X=X,
        Y=Y,
        W_Q=p.W_Q,
        W_K=p.W_K,
        W_V=p.W_V,
        mask="none",
        scaled=cfg.scaled,
        focus_row=1,
    )

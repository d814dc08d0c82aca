"""A seeded training run of one head, one step at a time, with what the screen and the CLI show.

Trainer(config).step() takes one mini-batch step; every ``log_every`` steps (and at step 0)
it logs the loss, accuracy, mean row entropy and mean p(1−p) on a fixed evaluation set drawn
from the seed, so the curves do not jitter with the batches. run(config) trains to the end
and returns the figures as a dict (what `attn-tui train --json` prints).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..attention import attention
from ..info import row_entropies_bits
from . import head, optim
from .task import Task

if TYPE_CHECKING:
    from typing import Any

STARVED = 1e-3  # a right key with less weight than this gets (almost) no gradient
ONE_HOT = 0.99  # a row with more than this on one key is counted one-hot
LIMITS = {"d_k": (1, 512), "steps": (1, 100_000), "batch": (1, 4096), "log_every": (1, 100_000)}


@dataclass(frozen=True)
class Config:
    task: str = "assoc-recall"
    d_k: int = 16
    scaled: bool = True
    steps: int = 300
    lr: float = 0.5
    seed: int = 0
    batch: int = 32
    optimizer: str = "sgd"
    log_every: int = 10
    eval_size: int = 256
    target_loss: float = 0.05

    def __post_init__(self) -> None:
        for name, (lo, hi) in LIMITS.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{name}: {v!r} must be a whole number from {lo} to {hi:,}")
        if not (isinstance(self.lr, (int, float)) and math.isfinite(self.lr) and 0 < self.lr <= 100):
            raise ValueError(f"lr: {self.lr!r} must be a number above 0 and at most 100")
        if self.optimizer not in optim.OPTIMIZERS:
            raise ValueError(f"optimizer: unknown {self.optimizer!r}; use {', '.join(optim.OPTIMIZERS)}")
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**32:
            raise ValueError(f"seed: {self.seed!r} must be a whole number from 0 to {2**32 - 1:,}")
        Task(self.task)  # refuses an unknown task

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)


class Trainer:
    """The state of one run: parameters, optimizer, batch generator, the log."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.task = Task(config.task)
        self.params = head.init_params(self.task.d_model, config.d_k, config.seed)
        self.opt = optim.make(config.optimizer, config.lr)
        self.rng = np.random.default_rng([config.seed, 3])  # the training batches
        self.eval_set = self.task.batch(np.random.default_rng([config.seed, 4]), config.eval_size)
        self.probe = self.task.probe(config.seed)
        self.step_count = 0
        self.log: list[dict[Any, Any]] = []
        self._record()

    @property
    def done(self) -> bool:
        return self.step_count >= self.config.steps

    def step(self) -> None:
        """One mini-batch gradient step (the last one also logs)."""
        X, Y, target = self.task.batch(self.rng, self.config.batch)
        f = head.forward(self.params, X, Y, target, self.config.scaled)
        grads = head.backward(self.params, f)
        new = self.opt.step({"W_Q": self.params.W_Q, "W_K": self.params.W_K}, grads)
        self.params = head.Params(new["W_Q"], new["W_K"], self.params.W_V)
        self.step_count += 1
        if self.step_count % self.config.log_every == 0 or self.done:
            self._record()

    def _record(self) -> None:
        if self.log and self.log[-1]["step"] == self.step_count:
            return
        X, Y, target = self.eval_set
        f = head.forward(self.params, X, Y, target, self.config.scaled)
        g = head.backward(self.params, f)
        norm = math.sqrt(sum(float(np.sum(v * v)) for v in g.values()))
        self.log.append({"step": self.step_count, **head.metrics(f), "grad_norm": norm})

    def _eval_A(self) -> Any:
        X, Y, target = self.eval_set
        return head.forward(self.params, X, Y, target, self.config.scaled).A

    def stuck(self) -> dict[Any, Any]:
        """The evaluation rows still wrong now; how many of them give the right key a weight p below
        STARVED, and those rows' mean p(1−p) on the right key: the only path by which the gradient
        reaches the right key's score, so near 0 it stalls there."""
        A, target = self._eval_A(), self.eval_set[2]
        wrong = np.argmax(A, axis=-1) != target  # (n, T)
        p = np.take_along_axis(A, target[..., None], axis=-1)[..., 0][wrong]  # (k,): weight on the right key
        rows = A[wrong]  # (k, T'): the wrong rows, to say whether they are one-hot or spread
        return {
            "wrong_rows": int(wrong.sum()),
            "wrong_rows_starved": int(np.sum(p < STARVED)),
            "wrong_rows_target_p_one_minus_p": float(np.mean(p * (1 - p))) if p.size else None,
            "wrong_rows_median_H_bits": float(np.median(row_entropies_bits(rows))) if p.size else None,
            "wrong_rows_median_max_weight": float(np.median(rows.max(axis=-1))) if p.size else None,
            "wrong_rows_one_hot_share": float(np.mean(rows.max(axis=-1) > ONE_HOT)) if p.size else None,
        }

    def probe_trace(self) -> Any:
        """The probe sequence through the core's attention(): a Trace (A, S, O, H …) of the head now."""
        X, Y, _target, _q, _k = self.probe
        p = self.params
        return attention(X @ p.W_Q, Y @ p.W_K, Y @ p.W_V, scale=head.scale_of(p.d_k, self.config.scaled))

    def qk_product(self) -> Any:
        """B = W_Q W_Kᵀ (d_model, d_model): the bilinear form the scores read (times c)."""
        return self.params.W_Q @ self.params.W_K.T

    def summary(self) -> dict[Any, Any]:
        return {**summarize(self.config, self.log), **self.stuck(), "rows": int(self.eval_set[2].size)}


def steps_to_target(log: list[dict[Any, Any]], target: float) -> int | None:
    """The first logged step whose evaluation loss is at or below ``target`` (None: never)."""
    return next((r["step"] for r in log if r["loss"] <= target), None)


def summarize(config: Config, log: list[dict[Any, Any]]) -> dict[Any, Any]:
    first, last = log[0], log[-1]
    return {
        "config": asdict(config),
        "step": [r["step"] for r in log],
        "loss": [r["loss"] for r in log],
        "accuracy": [r["accuracy"] for r in log],
        "mean_row_entropy_bits": [r["mean_row_entropy_bits"] for r in log],
        "mean_p_one_minus_p_curve": [r["mean_p_one_minus_p"] for r in log],
        "initial_loss": first["loss"],
        "final_loss": last["loss"],
        "final_accuracy": last["accuracy"],
        "steps_to_target": steps_to_target(log, config.target_loss),
        "target_loss": config.target_loss,
        "initial_mean_row_entropy_bits": first["mean_row_entropy_bits"],
        "mean_p_one_minus_p": first["mean_p_one_minus_p"],
        "final_mean_row_entropy_bits": last["mean_row_entropy_bits"],
        "final_mean_p_one_minus_p": last["mean_p_one_minus_p"],
        "initial_grad_norm": first["grad_norm"],
    }


def run(config: Config, progress: Any | None = None) -> dict[Any, Any]:
    """Train to the end; progress(step, steps) after each step if given. Returns summarize()."""
    tr = Trainer(config)
    while not tr.done:
        tr.step()
        if progress is not None:
            progress(tr.step_count, config.steps)
    return tr.summary()

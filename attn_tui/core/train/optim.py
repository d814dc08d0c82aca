"""Optimizers over a dict of arrays: SGD with momentum, and Adam. Each keeps its own state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

OPTIMIZERS = ("sgd", "adam")


class SGDMomentum:
    """v ← μ v + g;  w ← w − lr · v   (heavy-ball momentum, μ = 0.9)."""

    def __init__(self, lr: float, momentum: float = 0.9) -> None:
        self.lr, self.momentum = lr, momentum
        self.v: dict[Any, Any] = {}

    def step(self, params: dict[Any, Any], grads: dict[Any, Any]) -> dict[Any, Any]:
        out = {}
        for k, g in grads.items():
            self.v[k] = self.momentum * self.v.get(k, 0.0) + g
            out[k] = params[k] - self.lr * self.v[k]
        return out


class Adam:
    """Adam (Kingma & Ba): m, v moving averages of g and g², bias-corrected; w ← w − lr m̂/(√v̂ + ε)."""

    def __init__(self, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> None:
        self.lr, self.b1, self.b2, self.eps = lr, beta1, beta2, eps
        self.m: dict[Any, Any] = {}
        self.v: dict[Any, Any] = {}
        self.t = 0

    def step(self, params: dict[Any, Any], grads: dict[Any, Any]) -> dict[Any, Any]:
        self.t += 1
        out = {}
        for k, g in grads.items():
            self.m[k] = self.b1 * self.m.get(k, 0.0) + (1 - self.b1) * g
            self.v[k] = self.b2 * self.v.get(k, 0.0) + (1 - self.b2) * g * g
            m_hat = self.m[k] / (1 - self.b1**self.t)
            v_hat = self.v[k] / (1 - self.b2**self.t)
            out[k] = params[k] - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        return out


def make(name: str, lr: float) -> Any:
    if name == "sgd":
        return SGDMomentum(lr)
    if name == "adam":
        return Adam(lr)
    raise ValueError(f"optimizer: unknown {name!r}; use {', '.join(OPTIMIZERS)}")

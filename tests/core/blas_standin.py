"""Issue 34's case, its tolerances, and a stand-in for a BLAS whose rounding depends on the shape
of the call (the reporter's machine).

OpenBLAS on the development machine rounds a 16 x 512 and a 16 x 735 call alike (only a
1-row call differs), so the issue's 735-token case passed there even before the fix; the
reporter's BLAS did not. ``shape_sensitive(monkeypatch)`` wraps core.attention.matmul (which
the full path and core.stream_source call) so that each cell of a product moves by one ulp of
the dtype, up or down or not at all, by its place in the call and the call's shape: the same
call gives the same bits, another shape other bits, as a real kernel's blocking does.
"""

from __future__ import annotations

import importlib

import numpy as np

from attn_tui.core.scenario import Scenario

attention = importlib.import_module("attn_tui.core.attention")  # the module (core's package exports the function)
stream_source = importlib.import_module("attn_tui.core.stream_source")


def _nudged(P):
    m, n = P.shape
    i, j = np.indices((m, n))
    step = (7 * i + 3 * j + m + 5 * n) % 3 - 1  # -1, 0 or +1 ulp, a pattern set by the call's shape
    with np.errstate(over="ignore", invalid="ignore"):
        up, down = np.nextafter(P, np.inf), np.nextafter(P, -np.inf)
    return np.where(step > 0, up, np.where(step < 0, down, P)).astype(P.dtype)


def shape_sensitive(monkeypatch) -> None:
    real = attention.matmul

    def matmul(a, b):
        P = real(a, b)
        return _nudged(P) if P.ndim == 2 else P

    monkeypatch.setattr(attention, "matmul", matmul)
    monkeypatch.setattr(stream_source, "matmul", matmul)


def blas(kind: str, monkeypatch) -> None:
    """ "real": the machine's BLAS; "shapes": the shape-sensitive stand-in."""
    if kind == "shapes":
        shape_sensitive(monkeypatch)


EPS64 = float(np.finfo(np.float64).eps)
BLAS = ["real", "shapes"]


def issue_case(dtype="float32", T=735, d=64, c=1000.0, seed=34, **kw) -> Scenario:
    """The issue's case: Q, K, V ~ N(0, 9) (seeded), no mask, unscaled, c = 1000, float32."""
    rng = np.random.default_rng(seed)
    Q, K, V = (3.0 * rng.standard_normal((T, d)) for _ in range(3))
    return Scenario(Q=Q, K=K, V=V, mask=kw.pop("mask", "none"), scaled=False, c=c, dtype=dtype, **kw)


def dtype_tols(dt, T):
    """(eps, smallest subnormal) of the dtype and the row-sum tolerance: each weight is rounded
    once to the dtype (at most eps/2 of itself, or half a subnormal below the normal range), so
    a row's sum moves by at most eps/2 · Σ A + T · sub / 2; m and l are float64 (T · eps64 each,
    and as much again for the test's own float64 sum)."""
    fi = np.finfo(dt)
    eps, sub = float(fi.eps), float(fi.smallest_subnormal)
    return eps, sub, eps / 2 + T * (sub / 2 + 4 * EPS64)

"""Random scenarios: Gaussian X and projections, seeded, any size the app can show.

X (T, d_model) has i.i.d. N(0, 1) entries; W_Q, W_K (d_model, d_k) and W_V
(d_model, d_v) have N(0, 1/d_model) entries, so each component of q = x W_Q has
variance 1 and q·k has variance d_k -- the lesson's setting for the 1/√d_k scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .edit import EditError
from .limits import EDIT_MAX, admit, shown
from .numparse import parse_int
from .scenario import Scenario

if TYPE_CHECKING:
    from typing import Any

LIMITS = {"T": (1, EDIT_MAX), "d_model": (1, EDIT_MAX), "d_k": (1, EDIT_MAX), "d_v": (1, EDIT_MAX)}
LIMITS["seed"] = (0, 2**32 - 1)
# d_model, d_k, d_v up to 512 as in a file (docs/FILES.md: Limits): the lesson's d_k = 512 case can be rebuilt
DEFAULTS = {"T": 8, "d_model": 8, "d_k": 4, "d_v": 4, "seed": 0}


def check_params(**params: Any) -> dict[Any, Any]:
    """Validated integer parameters (defaults filled in); EditError names the bad one."""
    out = dict(DEFAULTS)
    for key, value in params.items():
        if key not in LIMITS:
            raise EditError(f"{shown(key)}: unknown parameter; use {', '.join(LIMITS)}")
        lo, hi = LIMITS[key]
        if isinstance(value, str):
            value = parse_int(value, key, lo, hi, EditError)  # ASCII digits only, bounded length
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
            raise EditError(f"{key}: {shown(value)} must be a whole number from {lo} to {hi}")
        out[key] = int(value)
    return out


def random_scenario(
    T: int = 8, d_model: int = 8, d_k: int = 4, d_v: int = 4, seed: int = 0, mask: str = "causal"
) -> Scenario:
    """A seeded Gaussian scenario; the same arguments give the same matrices, bit for bit."""
    p = check_params(T=T, d_model=d_model, d_k=d_k, d_v=d_v, seed=seed)
    rng = np.random.default_rng(p["seed"])
    dm = p["d_model"]
    X = rng.standard_normal((p["T"], dm))
    W_Q = rng.standard_normal((dm, p["d_k"])) / np.sqrt(dm)
    W_K = rng.standard_normal((dm, p["d_k"])) / np.sqrt(dm)
    W_V = rng.standard_normal((dm, p["d_v"])) / np.sqrt(dm)
    return admit(
        Scenario(  # the limits a file must pass too (core.limits)
            title=f"Random: T={p['T']}, d_model={dm}, d_k={p['d_k']}, d_v={p['d_v']}, seed={p['seed']} "
            "(Gaussian; q·k has variance d_k)",
            tokens=tuple(f"t{i + 1}" for i in range(p["T"])),
            features=tuple(f"f{j + 1}" for j in range(dm)),
            X=X,
            W_Q=W_Q,
            W_K=W_K,
            W_V=W_V,
            mask=mask,
        ),
        EditError,
    )

"""The experiments screen's words: why its numbers differ from the lesson's, and the
lesson's printed figures to set beside the app's.

LESSON_PRINTED quotes the lesson's output verbatim (its own generator, seeds 8 and 16,
n = 5000): those digits cannot be computed here, so they are labelled "the lesson
printed" wherever they show. Everything else is the app's own run (core.experiments).
"""

from __future__ import annotations

import inspect
from typing import Any

from ...core import experiments

SWEEP_SEED = inspect.signature(experiments.sweep_scores).parameters["seed"].default

# Quoted from the lesson's printed output (rustlab's generator), not computed.
LESSON_PRINTED: dict[str, Any] = {  # numbers, tuples and dicts of them, by key
    "seed": 8,
    "n": 5000,
    "variance": {
        4: (3.9421480253630032, 0.9855370063407508),
        64: (64.25729915186785, 1.0040202992479352),
        512: (528.3374583922757, 1.0319090984224135),
    },
    "saturation": {
        "unscaled": (0.9999999999999583, 0.000000000001914218322257698),
        "scaled": (0.5235101584047486, 2.1887527342740865),
    },
    "sweep_seed": 16,
    "sweep_c": (0.1, 1.0, 3.0),
    "sweep_H": (2.995300634107477, 2.2559471769069237, 0.1687290966557756),
}


def seeds_text(dks, seed: int) -> str:
    """Which seed drew which run, as the screen runs them (seed + j for the j-th d_k)."""
    seeds = ", ".join(str(seed + j) for j in range(len(dks)))
    return (
        f"seeds {seeds} for d_k = {', '.join(str(d) for d in dks)}; {seed} for the saturation row, "
        f"{SWEEP_SEED} for the sweep"
    )


def rng_note(dks, n: int, seed: int) -> str:
    """The RNG note, where the numbers are shown."""
    return (
        f"q, k have independent N(0, 1) components (mean 0, variance 1), drawn by NumPy's default_rng, "
        f"not the lesson's generator: the digits differ, the shape reproduces. n = {n:,}, "
        f'{seeds_text(dks, seed)}. "the lesson printed": the lesson\'s own figures '
        f"(its generator, seed {LESSON_PRINTED['seed']}, n = {LESSON_PRINTED['n']:,})."
    )


def sweep_compare() -> str:
    """H at the lesson's three c values: the app's run beside what the lesson printed."""
    cs = LESSON_PRINTED["sweep_c"]
    app = experiments.entropies_at(cs)
    show = ", ".join(f"{c:g}" for c in cs)
    return (
        f"H(A_t) at c = {show}: here "
        + ", ".join(f"{h:.2f}" for h in app)
        + " bits; the lesson printed "
        + ", ".join(f"{h:.2f}" for h in LESSON_PRINTED["sweep_H"])
        + " bits"
    )

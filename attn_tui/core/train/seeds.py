"""The comparison over several seeds: each figure as the median and the range (min–max).

One seed's unscaled run at d_k = 64 or 256 is chaotic: a relative change of 1e-15 in W_Q (a BLAS
kernel summing in another order) moves its final loss in the third digit. A figure worth printing
is one any machine reproduces, so docs/TRAINING.md's table is the median over seeds with the spread,
and its claims are the ones every seed shows (tests/report/test_train_cli.py).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict
from typing import TYPE_CHECKING

from .compare import DKS, compare, plan
from .pool import run_all
from .run import Config

if TYPE_CHECKING:
    from typing import Any

FIGURES = ("steps_to_target", "initial_mean_row_entropy_bits", "mean_p_one_minus_p", "final_accuracy", "final_loss")


def spread(values: list[Any]) -> dict[Any, Any]:
    """{'median', 'min', 'max'} of ``values``; None (a target never reached) counts as +∞ and is
    given back as None, so "never" sorts after every number of steps. Whole numbers (steps) take the
    lower median, a step that was logged, never a half-way 85.0 between 80 and 90."""
    xs = [math.inf if v is None else v for v in values]
    steps = all(v is None or isinstance(v, int) for v in values)
    med = statistics.median_low(xs) if steps else statistics.median(xs)
    return {k: None if x == math.inf else x for k, x in (("median", med), ("min", min(xs)), ("max", max(xs)))}


def summarize_runs(runs: list[dict[Any, Any]]) -> dict[Any, Any]:
    """Per figure, spread() over the runs; plus how many runs reached the target."""
    out: dict[str, Any] = {f: spread([r[f] for r in runs]) for f in FIGURES}
    out["reached"] = sum(r["steps_to_target"] is not None for r in runs)
    out["runs"] = len(runs)
    return out


def compare_seeds(
    config: Config, seeds: Any, dks: Any = DKS, progress: Any | None = None, jobs: int = 1
) -> list[dict[Any, Any]]:
    """[{d_k, seeds, scaled, unscaled, verdict}]: each of ``scaled``/``unscaled`` is summarize_runs()
    over compare(config with that d_k and seed) for every seed (the config's own seed is ignored).
    The runs go to up to ``jobs`` processes (pool.py: the same figures) unless ``progress`` is given."""
    seeds = list(seeds)
    if jobs > 1 and progress is None:
        plans = [plan(config.with_(seed=seed), (d_k,)) for d_k in dks for seed in seeds]
        done = iter(run_all([c for pair in plans for c in pair], jobs))
        pairs = [{"scaled": next(done), "unscaled": next(done)} for _ in plans]
    else:
        pairs = []
        for d_k in dks:
            for seed in seeds:
                p = progress and (lambda name, s, n, d_k=d_k, seed=seed: progress(d_k, seed, name, s, n))
                pairs.append(compare(config.with_(d_k=d_k, seed=seed), p))
    shared = {k: v for k, v in asdict(config).items() if k not in ("d_k", "seed", "scaled")}
    rows = []
    for k, d_k in enumerate(dks):
        per = pairs[k * len(seeds) : (k + 1) * len(seeds)]
        row = {"d_k": d_k, "seeds": seeds, "config": shared}
        row.update({name: summarize_runs([pair[name] for pair in per]) for name in ("scaled", "unscaled")})
        row["verdict"] = verdict(row, config)
        rows.append(row)
    return rows


def verdict(row: dict[Any, Any], config: Config) -> str:
    """What the seeds show at one d_k, counted from the runs (no figure typed in)."""
    s, u, n = row["scaled"], row["unscaled"], row["scaled"]["runs"]
    target, steps = config.target_loss, config.steps

    def reached(x: Any) -> str:
        if not x["reached"]:
            return f"in none of {n} seeds"
        m = x["steps_to_target"]
        return f"in {x['reached']} of {n} seeds (median {'never' if m['median'] is None else m['median']} steps)"

    return (
        f"d_k = {row['d_k']}: loss ≤ {target:g} within {steps} steps: scaled {reached(s)}, unscaled {reached(u)}; "
        f"median final accuracy {s['final_accuracy']['median']:.3f} scaled, {u['final_accuracy']['median']:.3f} "
        f"unscaled; mean row entropy at step 0 {s['initial_mean_row_entropy_bits']['median']:.2f} vs "
        f"{u['initial_mean_row_entropy_bits']['median']:.2f} bits."
    )

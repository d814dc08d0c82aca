"""The lesson's experiment: the same task, initialisation, learning rate and batches, trained
with scaled (1/√d_k) and with unscaled scores, and what the measured figures say.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .pool import run_all
from .run import ONE_HOT, STARVED, Config, run

if TYPE_CHECKING:
    from typing import Any

DKS = (4, 64, 256)
COMPARE_STEPS = 1000  # enough for the scaled runs to finish learning and the stalls to show


def compare(config: Config, progress: Any | None = None) -> dict[Any, Any]:
    """{'scaled': summary, 'unscaled': summary} for ``config`` (its ``scaled`` is overridden)."""
    out = {}
    for name, scaled in (("scaled", True), ("unscaled", False)):
        out[name] = run(config.with_(scaled=scaled), progress and (lambda s, n, name=name: progress(name, s, n)))
    return out


def verdict(d_k: int, scaled: dict[Any, Any], unscaled: dict[Any, Any]) -> str:
    """One sentence saying what the two measured runs show, and why (the lesson's reason)."""
    n = scaled["config"]["steps"]
    target = scaled["target_loss"]
    ss, su = scaled["steps_to_target"], unscaled["steps_to_target"]
    start = (
        f"raw scores have sd ≈ √d_k = {math.sqrt(d_k):.3g}: mean row entropy at step 0 "
        f"{unscaled['initial_mean_row_entropy_bits']:.2f} vs {scaled['initial_mean_row_entropy_bits']:.2f} bits, "
        f"mean p(1−p) {unscaled['mean_p_one_minus_p']:.3f} vs {scaled['mean_p_one_minus_p']:.3f}"
    )
    if su is None and ss is not None and not unscaled["wrong_rows"]:
        return (
            f"d_k = {d_k}: unscaled never reached loss ≤ {target:g} in {n} steps (scaled: {ss}), though every "
            f"held-out row puts its largest weight on the right key; unscaled, the {start}."
        )
    if su is None and ss is not None:
        return (
            f"d_k = {d_k}: unscaled never reached loss ≤ {target:g} in {n} steps (scaled: {ss}); "
            f"final accuracy {unscaled['final_accuracy']:.2f} vs {scaled['final_accuracy']:.2f}. Unscaled, the "
            f"{start}. At the end {unscaled['wrong_rows_starved']} of its {unscaled['wrong_rows']} wrong rows give the "
            f"right key p < {STARVED:g}, so its p(1−p) ≈ 0 (mean {unscaled['wrong_rows_target_p_one_minus_p']:.1e}): "
            f"no gradient reaches that score, and training stalls. {stall_words(unscaled)}"
        )
    if su is None and ss is None:
        return f"d_k = {d_k}: neither run reached loss ≤ {target:g} in {n} steps; more steps or a larger lr."
    if ss is None:
        return f"d_k = {d_k}: only unscaled reached loss ≤ {target:g} ({su} steps of {n}); unscaled, the {start}."
    if su == ss:
        return f"d_k = {d_k}: both reached loss ≤ {target:g} in {ss} steps; unscaled, the {start}."
    ratio = su / ss
    if ratio > 1:
        return (
            f"d_k = {d_k}: unscaled reached loss ≤ {target:g} {ratio:.1f}× slower ({su} vs {ss} steps). "
            f"Unscaled, the {start}: the sharper rows pass less gradient."
        )
    return (
        f"d_k = {d_k}: unscaled reached loss ≤ {target:g} {1 / ratio:.1f}× faster ({su} vs {ss} steps). "
        f"Unscaled, the {start}: at this d_k the rows are sharper but not saturated, and scores √d_k times "
        f"larger move further per step, like a larger learning rate."
    )


def stall_words(u: dict[Any, Any]) -> str:
    """Whether the wrong rows are one-hot (the lesson's saturation) or spread, from the measured figures."""
    share, med_h, med_max = (u.get(k) for k in ("wrong_rows_one_hot_share", "wrong_rows_median_H_bits",
                                                  "wrong_rows_median_max_weight"))  # fmt: skip
    if share is None or med_h is None or med_max is None:
        return ""
    if share >= 0.5:
        return (
            f"{share:.0%} of those rows put more than {ONE_HOT:g} on one wrong key: one-hot rows, the lesson's "
            "saturation, p(1−p) ≈ 0 on every key."
        )
    return (
        f"Those rows are not one-hot (median H {med_h:.2f} bits, median largest weight {med_max:.2f}, "
        f"{share:.0%} above {ONE_HOT:g}): the stall is the right key's p → 0 (the p → 0 end of p(1−p)) plus "
        "gradients that cancel among the wrong keys the row ties."
    )


def plan(config: Config, dks: Any = DKS) -> list[Config]:
    """The runs of the comparison, in order: per d_k, scaled then unscaled (the same seed and lr)."""
    return [config.with_(d_k=d_k, scaled=scaled) for d_k in dks for scaled in (True, False)]


def rows_of(dks: Any, summaries: list[dict[Any, Any]]) -> list[dict[Any, Any]]:
    """[{d_k, scaled, unscaled, verdict}] from the run() summaries of plan(config, dks), in its order."""
    rows = []
    for d_k, scaled, unscaled in zip(dks, summaries[0::2], summaries[1::2]):
        rows.append({"d_k": d_k, "scaled": scaled, "unscaled": unscaled, "verdict": verdict(d_k, scaled, unscaled)})
    return rows


def compare_all(config: Config, dks: Any = DKS, progress: Any | None = None, jobs: int = 1) -> list[dict[Any, Any]]:
    """[{d_k, scaled, unscaled, verdict}] for each d_k, the same seed and learning rate; the runs
    in up to ``jobs`` processes (pool.py: the same figures), or here with per-step ``progress``."""
    if jobs > 1 and progress is None:
        return rows_of(dks, run_all(plan(config, dks), jobs))
    rows = []
    for d_k in dks:
        pair = compare(config.with_(d_k=d_k), progress and (lambda name, s, n, d_k=d_k: progress(d_k, name, s, n)))
        rows.append({"d_k": d_k, **pair, "verdict": verdict(d_k, pair["scaled"], pair["unscaled"])})
    return rows


STALL_DKS = (64, 256)  # the d_k whose unscaled stall the tour reads: spread rows, then one-hot rows
_MEASURED: dict[int, dict[Any, Any]] = {}  # d_k -> run() of the unscaled default run (a few seconds each): kept


def unscaled_stall(d_k: int) -> dict[Any, Any]:
    """run() of the default head, unscaled, for COMPARE_STEPS steps at ``d_k`` (measured once)."""
    if d_k not in _MEASURED:
        _MEASURED[d_k] = run(Config(d_k=d_k, scaled=False, steps=COMPARE_STEPS))
    return _MEASURED[d_k]


def measured(d_k: int) -> dict[Any, Any] | None:
    """unscaled_stall(d_k) if it has been measured, else None (never trains)."""
    return _MEASURED.get(d_k)

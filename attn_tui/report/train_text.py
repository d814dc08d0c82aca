"""Headless output of `attn-tui train`: a run's curve and figures, or the scaled/unscaled comparison.

Text for people, JSON for programs (non-finite numbers as null). Imports the core only.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from ..core.train.task import Task

if TYPE_CHECKING:
    from typing import Any

CURVE_ROWS = 12  # logged rows printed in the text curve (evenly spaced, the last included)


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def as_json(obj: Any) -> str:
    return json.dumps(_clean(obj), indent=2, allow_nan=False) + "\n"


def _steps(v: Any) -> str:
    return "never" if v is None else str(v)


def task_line(cfg: dict[Any, Any]) -> str:
    t = Task(cfg["task"])
    return (
        f"task {t.name}: {t.n_keys} keys from {t.n_symbols} one-hot symbols, {t.n_queries} queries each repeating "
        "one key; the head must put its weight on the matching key"
        + (f" (seed {cfg['seed']})" if "seed" in cfg else "")
    )


def run_text(r: dict[Any, Any]) -> str:
    cfg = r["config"]
    scale = "1/√d_k" if cfg["scaled"] else "unscaled (c = 1)"
    lines = [
        task_line(cfg),
        f"head: d_k = {cfg['d_k']}, scores {scale}; {cfg['optimizer']} lr {cfg['lr']:g}, "
        f"batch {cfg['batch']}, {cfg['steps']} steps",
        "",
        f"{'step':>6}  {'loss':>9}  {'accuracy':>8}  {'H bits':>6}  {'p(1−p)':>7}",
    ]
    n = len(r["step"])
    rows = min(n, CURVE_ROWS)  # every logged row when there are fewer
    picks = sorted({round(i * (n - 1) / max(1, rows - 1)) for i in range(rows)})
    for i in picks:
        lines.append(
            f"{r['step'][i]:>6}  {r['loss'][i]:>9.5f}  {r['accuracy'][i]:>8.3f}  "
            f"{r['mean_row_entropy_bits'][i]:>6.3f}  {r['mean_p_one_minus_p_curve'][i]:>7.4f}"
        )
    lines += [
        "",
        f"final loss {r['final_loss']:.5f}, final accuracy {r['final_accuracy']:.3f}",
        f"steps to loss ≤ {r['target_loss']:g}: {_steps(r['steps_to_target'])}",
        f"at step 0: mean row entropy {r['initial_mean_row_entropy_bits']:.3f} bits, "
        f"mean p(1−p) {r['mean_p_one_minus_p']:.4f}",
    ]
    return "\n".join(lines) + "\n"


def compare_table(rows: list[dict[Any, Any]]) -> str:
    """rows: core.train.compare.compare_all(); one line per d_k and scaling."""
    lines = [
        f"{'d_k':<5}{'scores':<10}{'steps to target':>15}  {'H at step 0':>11}  "
        f"{'p(1−p) at 0':>11}  {'final acc':>9}  {'final loss':>10}"
    ]
    for row in rows:
        for name in ("scaled", "unscaled"):
            r = row[name]
            lines.append(
                f"{row['d_k']:<5}{name:<10}{_steps(r['steps_to_target']):>15}  "
                f"{r['initial_mean_row_entropy_bits']:>11.3f}  {r['mean_p_one_minus_p']:>11.4f}  "
                f"{r['final_accuracy']:>9.3f}  {r['final_loss']:>10.5f}"
            )
    return "\n".join(lines) + "\n"


def compare_rows_text(rows: list[dict[Any, Any]]) -> str:
    """rows: core.train.compare.compare_all() (or one row); a table, then each d_k's verdict."""
    cfg = rows[0]["scaled"]["config"]
    n = Task(cfg["task"]).n_keys
    lines = [
        task_line(cfg),
        "",
        compare_table(rows),
        f"same task, initialisation, batches and learning rate ({cfg['optimizer']} lr {cfg['lr']:g}, "
        f"{cfg['steps']} steps, seed {cfg['seed']}); target loss {rows[0]['scaled']['target_loss']:g}; "
        f"H in bits (of log₂ {n} = {math.log2(n):g})",
        "",
    ]
    lines += [row["verdict"] for row in rows]
    return "\n".join(lines) + "\n"


def _spread(x: dict[Any, Any], fmt: str) -> str:
    a, b, c = ("never" if v is None else format(v, fmt) for v in (x["median"], x["min"], x["max"]))
    return f"{a} ({b}–{c})"


SEED_COLUMNS = (
    ("steps to target", "steps_to_target", "d", 19),
    ("H at step 0", "initial_mean_row_entropy_bits", ".3f", 19),
    ("p(1−p) at 0", "mean_p_one_minus_p", ".4f", 22),
    ("final acc", "final_accuracy", ".3f", 19),
    ("final loss", "final_loss", ".5f", 25),
)


def compare_seeds_table(rows: list[dict[Any, Any]]) -> str:
    """rows: core.train.seeds.compare_seeds(); each cell the median (min–max) over the seeds."""
    lines = [f"{'d_k':<5}{'scores':<10}" + "  ".join(f"{title:>{w}}" for title, _k, _f, w in SEED_COLUMNS)]
    for row in rows:
        for name in ("scaled", "unscaled"):
            r = row[name]
            cells = "  ".join(f"{_spread(r[key], fmt):>{w}}" for _t, key, fmt, w in SEED_COLUMNS)
            lines.append(f"{row['d_k']:<5}{name:<10}{cells}")
    return "\n".join(lines) + "\n"


def seeds_line(seeds: list[int]) -> str:
    run = seeds == list(range(seeds[0], seeds[0] + len(seeds)))
    named = f"{seeds[0]}–{seeds[-1]}" if run and len(seeds) > 1 else ", ".join(map(str, seeds))
    return f"median (min–max) over {len(seeds)} seed{'s' * (len(seeds) > 1)} ({named})"


def compare_seeds_text(rows: list[dict[Any, Any]]) -> str:
    """rows: core.train.seeds.compare_seeds(); the table, what its cells are, each d_k's verdict."""
    cfg, n = rows[0]["config"], Task(rows[0]["config"]["task"]).n_keys
    lines = [
        task_line(cfg),
        "",
        compare_seeds_table(rows),
        f"{seeds_line(rows[0]['seeds'])}; the same task, batches and learning rate for both columns per seed "
        f"({cfg['optimizer']} lr {cfg['lr']:g}, {cfg['steps']} steps); target loss {cfg['target_loss']:g}; "
        f"H in bits (of log₂ {n} = {math.log2(n):g})",
        "",
    ]
    lines += [row["verdict"] for row in rows]
    return "\n".join(lines) + "\n"

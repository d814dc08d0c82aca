"""What the training screen shows, from a training snapshot: pure (no Textual).

Snapshot: what the worker hands the screen after some steps (copies, so the screen never
reads arrays the worker is changing). Curves: the series the two plots draw. The texts
(status, titles, the figures, the comparison) are built here from measured numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.numparse import parse_float, parse_int
from ...core.train.run import Config
from ...core.train.task import symbol_name
from ...report.train_text import compare_table

CONTROLS = ("lr", "d_k", "steps", "seed")


@dataclass(frozen=True, eq=False)
class Snapshot:
    config: Config
    step: int
    log: tuple  # the logged rows so far (dicts: step, loss, accuracy, mean_row_entropy_bits, ...)
    A: np.ndarray  # (T, T') the probe's attention now
    target: np.ndarray  # (T,) the right key of each probe query
    B: np.ndarray  # (d_model, d_model) W_Q W_Kᵀ
    q_labels: tuple
    k_labels: tuple
    running: bool = False


def snapshot(trainer, running: bool = False) -> Snapshot:
    _X, _Y, target, q_labels, k_labels = trainer.probe
    return Snapshot(
        config=trainer.config,
        step=trainer.step_count,
        log=tuple(trainer.log),
        A=trainer.probe_trace().A,
        target=np.asarray(target),
        B=trainer.qk_product(),
        q_labels=tuple(q_labels),
        k_labels=tuple(k_labels),
        running=running,
    )


def parse_controls(texts: dict) -> tuple[dict | None, str | None]:
    """{'lr': '0.5', 'd_k': '16', 'steps': '300', 'seed': '0'} -> (values, None) or (None, one line)."""
    out: dict[str, Any] = {}  # lr a float, the others ints: Config's keywords
    for key in CONTROLS:
        raw = texts.get(key, "")
        try:  # ASCII only (numparse); Config checks the ranges
            out[key] = parse_float(raw, key, example="0.5") if key == "lr" else parse_int(raw, key)
        except ValueError as exc:
            return None, str(exc)
    try:
        Config(**out)
    except ValueError as e:
        return None, str(e).splitlines()[0]
    return out, None


KEYS_HINT = "r reset  u scale  c compare  v view  s explorer"


def scale_words(cfg: Config) -> str:
    if cfg.scaled:
        return f"scaled: c = 1/√{cfg.d_k} = {1 / math.sqrt(cfg.d_k):.3g}"
    return "unscaled: c = 1 (raw Q Kᵀ)"


def status(s: Snapshot) -> str:
    r = s.log[-1]
    state = "▶ training" if s.running else ("done" if s.step >= s.config.steps else "❚❚ paused")
    return (
        f"step {s.step}/{s.config.steps}  loss {r['loss']:.4g}  accuracy {r['accuracy']:.2f}  "
        f"H {r['mean_row_entropy_bits']:.2f} of {math.log2(s.A.shape[1]):g} bits  "
        f"mean p(1−p) {r['mean_p_one_minus_p']:.3f}  {state}"
    )


def probe_right(s: Snapshot) -> int:
    return int(np.sum(np.argmax(s.A, axis=1) == s.target))


def probe_title(s: Snapshot) -> str:
    return f"A of the probe: row x? → key x  ({probe_right(s)}/{len(s.target)} right now)"


def qk_title(s: Snapshot) -> str:
    n, m = s.B.shape
    return (
        f"W_Q·W_Kᵀ ({n}×{m}, a row and a column per symbol; scores = c·this): learned when each diagonal leads its row"
    )


def symbols(n: int) -> tuple:
    return tuple(symbol_name(i) for i in range(n))


@dataclass(frozen=True)
class Curves:
    steps: list
    loss: list
    accuracy: list
    entropy_share: list
    p1p_share: list
    max_step: int
    target: float
    loss_lo: float
    loss_hi: float
    loss_title: str
    rows_title: str


def curves(s: Snapshot) -> Curves:
    n = s.A.shape[1]
    bits = math.log2(n)
    p1p_max = (1 / n) * (1 - 1 / n)  # mean p(1−p) of a uniform row, its largest value
    log = s.log
    loss = [r["loss"] for r in log]
    target = s.config.target_loss
    lo = min([*loss, target]) / 2
    hi = max([*loss, target]) * 2
    return Curves(
        steps=[r["step"] for r in log],
        loss=loss,
        accuracy=[r["accuracy"] for r in log],
        entropy_share=[r["mean_row_entropy_bits"] / bits for r in log],
        p1p_share=[r["mean_p_one_minus_p"] / p1p_max for r in log],
        max_step=s.config.steps,
        target=target,
        loss_lo=lo,
        loss_hi=hi,
        loss_title=f"loss ½‖O−y‖² (red: target {target:g})",
        rows_title=f"a accuracy  H entropy/{bits:g} bits  p p(1−p)/{p1p_max:.3f}",
    )


def figures(s: Snapshot) -> str:
    """The run's numbers: at step 0 and now, and when the target loss was first reached."""
    first, last = s.log[0], s.log[-1]
    reached = next((r["step"] for r in s.log if r["loss"] <= s.config.target_loss), None)
    never = f"not reached in {s.step} steps" if s.step >= s.config.steps else "not yet"
    return "\n".join(
        [
            f"{'':<12}{'step 0':>10}{'now':>10}",
            f"{'loss':<12}{first['loss']:>10.4f}{last['loss']:>10.4f}",
            f"{'accuracy':<12}{first['accuracy']:>10.2f}{last['accuracy']:>10.2f}",
            f"{'H bits':<12}{first['mean_row_entropy_bits']:>10.2f}{last['mean_row_entropy_bits']:>10.2f}",
            f"{'p(1−p)':<12}{first['mean_p_one_minus_p']:>10.4f}{last['mean_p_one_minus_p']:>10.4f}",
            f"loss ≤ {s.config.target_loss:g} " + (f"at step {reached}" if reached is not None else never),
            f"{s.config.optimizer} lr {s.config.lr:g}, batch {s.config.batch}, seed {s.config.seed}",
        ]
    )


def compare_hint(dks) -> str:
    return f"c runs the comparison: scaled vs unscaled, d_k = {', '.join(map(str, dks))}"


def compare_running(cfg: Config, dks, processes: int, paused: bool) -> str:
    """What the running comparison is: the runs, and where they run."""
    return (
        f"running: scaled and unscaled at d_k = {', '.join(map(str, dks))}, {cfg.steps} steps, lr {cfg.lr:g}, "
        f"seed {cfg.seed}, in {processes} process{'es' if processes > 1 else ''}"
        + ("; the run is paused (space resumes it)" if paused else "")
    )


def compare_progress(words: str, done: int, runs: int, seconds: float) -> str:
    return f"{words}: {done} of {runs} runs done, {seconds:.0f} s …"


def compare_measured(rows: list[dict]) -> str:
    """The status line over a measured comparison: what the runs shared."""
    cfg = rows[0]["scaled"]["config"]
    return (
        f"measured, {cfg['steps']} steps each; the same task, seed {cfg['seed']}, initialisation, batches, "
        f"{cfg['optimizer']} lr {cfg['lr']:g}; target loss {cfg['target_loss']:g}"
    )


def comparison(rows: list[dict]) -> str:
    """The measured comparison: the table and the verdicts `attn-tui train --compare` prints."""
    return compare_table(rows) + "\n" + "\n".join(row["verdict"] for row in rows)


def tour_page() -> str:
    """The tour's page on training: what the comparison measures and what to read in it."""
    from ...core.train.compare import DKS
    from ...core.train.task import Task

    t = Task()
    sds = ", ".join(f"{math.sqrt(d):g}" for d in DKS)
    return (
        "The lesson says the projections are learned by gradient descent. The training screen (L) trains W_Q and "
        "W_K of one head on associative recall; W_V is fixed to the identity (a key's value is the token itself), "
        f"so it is not learned. The task: {t.n_keys} keys (one-hot symbols), {t.n_queries} queries, each repeating "
        "one key. The right A puts each query's weight on its matching key, and W_Q·W_Kᵀ learns a leading "
        "diagonal.\n\n"
        "The loss reaches the scores only through A = softmax(S), so its gradient passes the softmax Jacobian "
        "diag(p) − ppᵀ, whose diagonal p(1−p) goes to 0 as p goes to 0 or 1.\n\n"
        "W_Q and W_K start with N(0, 1) entries, so q and k have unit-variance components and a raw q·k has "
        f"standard deviation √d_k ({sds} at d_k = {', '.join(map(str, DKS))}); 1/√d_k brings the scores back to "
        "about unit variance.\n\n"
        "Try it trains the head scaled and unscaled at each of those d_k, with the same seed, initialisation, "
        "batches and learning rate, and shows what was measured: the steps to the target loss, the mean row "
        "entropy and mean p(1−p) at step 0, the final accuracy, and why each unscaled run stalls."
    )


def stall_paragraph() -> str:
    """What the unscaled runs' wrong rows look like at the end, measured (or 'measuring …')."""
    from ...core.train.compare import COMPARE_STEPS, STALL_DKS, measured

    runs = [measured(d) for d in STALL_DKS]
    if any(r is None or r["wrong_rows"] == 0 for r in runs):
        done = all(r is not None for r in runs)
        return (
            "Unscaled, every run ended with no wrong rows."
            if done
            else f"(measuring the unscaled runs at d_k = {' and '.join(map(str, STALL_DKS))}, {COMPARE_STEPS} steps …)"
        )
    lo, hi = runs
    assert lo is not None and hi is not None  # measured: the test above returned otherwise
    return (
        f"What the unscaled stall looks like, measured now ({COMPARE_STEPS} steps, seed 0): at d_k = {STALL_DKS[0]} "
        f"the {lo['wrong_rows']} rows that end wrong are not one-hot — median H {lo['wrong_rows_median_H_bits']:.2f} "
        f"bits, median largest weight {lo['wrong_rows_median_max_weight']:.2f}, "
        f"{lo['wrong_rows_one_hot_share']:.0%} above 0.99. The stall there is the right key's p → 0 (the p → 0 end "
        "of p(1−p)) plus gradients that cancel among the wrong keys a row ties. At d_k = "
        f"{STALL_DKS[1]} the lesson's one-hot picture holds: {hi['wrong_rows_one_hot_share']:.0%} of its "
        f"{hi['wrong_rows']} wrong rows put more than 0.99 on one wrong key, where p(1−p) ≈ 0 on every key."
    )

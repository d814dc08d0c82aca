"""`attn-tui train`: train one head headless and print the curve and figures (or --compare).

Bad values are refused by argparse or by core.train.run.Config, one line, exit 2 (cli.main).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .args import number_type
from .errors import EXIT_OK
from .output import emit

if TYPE_CHECKING:
    from typing import Any

NAME = "train"

MAX_SEEDS = 1000
MAX_JOBS = 64


def add_parser(sub) -> None:
    sub.add_parser(
        NAME,
        help="train one attention head on a toy task and print the loss curve and figures",
        description="Train one head (NumPy, hand-written backward) on associative recall. --compare trains it "
        "scaled and unscaled with the same seed and learning rate.",
        fill=_arguments,  # core.train's defaults: imported when `train` is parsed, not at every launch
    )


def _arguments(t) -> None:
    from ..core.train.compare import COMPARE_STEPS
    from ..core.train.optim import OPTIMIZERS
    from ..core.train.run import Config
    from ..core.train.task import TASKS

    defaults = Config()
    t.add_argument(
        "--task", choices=TASKS, default=defaults.task, metavar="NAME", help="the toy task: %(choices)s (default)"
    )
    t.add_argument(
        "--d-k", type=number_type(int, "d_k"), default=None, metavar="N", help=f"key width (default {defaults.d_k})"
    )
    t.add_argument("--unscaled", action="store_true", help="raw Q Kᵀ scores, without 1/√d_k")
    t.add_argument(
        "--steps",
        type=number_type(int, "steps"),
        default=None,
        metavar="N",
        help=f"optimizer steps (default {defaults.steps}; {COMPARE_STEPS} with --compare)",
    )
    t.add_argument(
        "--lr",
        type=number_type(float, "lr"),
        default=defaults.lr,
        metavar="X",
        help="learning rate (default %(default)s)",
    )
    t.add_argument(
        "--seed", type=number_type(int, "seed"), default=defaults.seed, metavar="S", help="seed (default %(default)s)"
    )
    t.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        default=defaults.optimizer,
        help="sgd (momentum 0.9) or adam (default %(default)s)",
    )
    _compare_arguments(t)
    t.add_argument("--json", action="store_true", help="JSON instead of text")


def _compare_arguments(t) -> None:
    """--compare and what goes with it: --seeds, --jobs."""
    from ..core.machine import cpus
    from ..core.train.compare import DKS

    t.add_argument(
        "--compare",
        action="store_true",
        help=f"scaled vs unscaled at --d-k (without --d-k: at d_k = {', '.join(map(str, DKS))})",
    )
    t.add_argument(
        "--seeds",
        type=number_type(int, "seeds"),
        default=None,
        metavar="N",
        help="with --compare: N seeds from --seed on, each figure as median (min–max) (docs/TRAINING.md's table: 9)",
    )
    t.add_argument(
        "--jobs",
        type=number_type(int, "jobs"),
        default=None,
        metavar="N",
        help=f"with --compare: the runs in N processes side by side, the same figures (default: one a CPU, "
        f"{cpus()} here); 1 runs them one after another in this process",
    )


def config(args: Any):
    """The core.train.run.Config of the parsed ``args`` (ValueError: a value out of range)."""
    from ..core.train.compare import COMPARE_STEPS
    from ..core.train.run import Config

    defaults = Config()
    steps = args.steps if args.steps is not None else (COMPARE_STEPS if args.compare else defaults.steps)
    d_k = args.d_k if args.d_k is not None else defaults.d_k
    return Config(
        task=args.task,
        d_k=d_k,
        scaled=not args.unscaled,
        steps=steps,
        lr=args.lr,
        seed=args.seed,
        optimizer=args.optimizer,
    )


def run(args: Any) -> int:
    emit(render(args))
    return EXIT_OK


def render(args: Any) -> str:
    """What `train` prints (text or JSON); ValueError: a value out of range or an option without --compare."""
    from ..core.machine import cpus
    from ..core.train import compare
    from ..core.train import run as train_run
    from ..core.train.compare import DKS
    from ..report import train_text

    try:
        cfg = config(args)
    except ValueError as e:  # main prints it on one line, exit 2
        raise ValueError(f"train --{str(e).replace('_', '-', 1)}") from None
    for option in ("seeds", "jobs"):
        if getattr(args, option) is not None and not args.compare:
            raise ValueError(f"train --{option}: only with --compare")
    if args.jobs is not None and not 1 <= args.jobs <= MAX_JOBS:
        raise ValueError(f"train --jobs: {args.jobs} must be a whole number from 1 to {MAX_JOBS}")
    jobs = cpus() if args.jobs is None else args.jobs
    if not args.compare:
        result = train_run.run(cfg)
        return train_text.as_json(result) if args.json else train_text.run_text(result)
    dks = (cfg.d_k,) if args.d_k is not None else DKS
    if args.seeds is not None:
        if not 1 <= args.seeds <= MAX_SEEDS:
            raise ValueError(f"train --seeds: {args.seeds} must be a whole number from 1 to {MAX_SEEDS}")
        from ..core.train import seeds

        rows = seeds.compare_seeds(cfg, range(cfg.seed, cfg.seed + args.seeds), dks, jobs=jobs)
        return train_text.as_json(rows) if args.json else train_text.compare_seeds_text(rows)
    rows = compare.compare_all(cfg, dks, jobs=jobs)
    if args.json:
        if len(rows) == 1:
            return train_text.as_json({k: rows[0][k] for k in ("scaled", "unscaled", "verdict", "d_k")})
        return train_text.as_json(rows)
    return train_text.compare_rows_text(rows)

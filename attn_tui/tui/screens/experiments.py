"""The experiments screen (`x`): the lesson's two numerical claims and its animation.

Variance: Var(q·k) ≈ d_k for d_k = 4, 64, 512 and a custom d_k (n, seed
adjustable), run in a thread worker with a progress bar so the UI never waits.
Saturation: one row at d_k = 512, T = 8, unscaled vs scaled. Scale sweep: the 30
frames c = 0.1 … 3.0, played, paused, stepped, and exported as SVG.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Label, ProgressBar, Static
from textual.worker import get_current_worker

from ...core import experiments
from ...core.numparse import parse_int
from ...report import sweep_svg as sweep_export
from .. import keys
from ..served_root import rooted
from ..views.exp_notes import LESSON_PRINTED, rng_note, sweep_compare
from ..widgets.exp_panels import (
    DotHistogram,
    ProgressLine,
    SweepCharts,
    saturation_text,
    saturation_words,
    variance_table,
)
from ..widgets.key_bar import KeyBar
from ..widgets.ordered_input import OrderedInput
from .files import FolderExportScreen, SaveScreen

if TYPE_CHECKING:
    from typing import Any

    from textual.timer import Timer

    from ..app import AttentionApp

HIST_N = 20000  # samples drawn for the histogram (the variance uses all n)
MAX_WORK = 20_000_000  # n·d_k per draw: keeps the two (n, d_k) arrays near 300 MB
LIMITS = {"d_k": (1, 4096), "n": (10, 1_000_000), "seed": (0, 2**31 - 1)}
FPS = 6  # the lesson's saveanim("softmax_sharpening.gif", 6)
EXPORT_DEFAULT = "softmax_sharpening"  # a folder under the working directory


def parse_settings(texts: dict) -> tuple[dict | None, str | None]:
    """{'d_k': '128', 'n': '5000', 'seed': '8'} -> (ints, None) or (None, one-line error)."""
    out = {}
    for key, (lo, hi) in LIMITS.items():
        try:
            out[key] = parse_int(texts.get(key, ""), key, lo, hi)
        except ValueError as exc:
            return None, str(exc)
    biggest = max(max(experiments.DKS), out["d_k"])
    if out["n"] * biggest > MAX_WORK:
        return None, f"n: n × d_k = {out['n'] * biggest:,} exceeds {MAX_WORK:,}; lower n or d_k"
    return out, None


class ExperimentsScreen(Screen):
    """Variance of q·k, saturation at d_k = 512, and the scale sweep."""

    if TYPE_CHECKING:  # the explorer's app, for the type checker (the app module is above the screens)
        app: AttentionApp

    HELP = (
        "The lesson's experiments: variance grows with d_k, the scale keeps a row at large d_k from saturating, "
        "c is an entropy knob."
    )
    AUTO_FOCUS = ""  # letters are keys here until the learner tabs into an input
    name_for_keys = "experiments"
    shows_state = False  # its sweep has a c of its own: `+` here would change the pipeline's c unseen
    BINDINGS = keys.bindings("experiments")
    CSS_PATH = "lessons.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # lessons.tcss: one column when narrow

    export_dir: Path | None = None  # the folder last exported to; None: ./softmax_sharpening

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.var_rows: list = []
        self.dots: dict = {}
        self.hist_index = 1  # d_k = 64 first
        self.frames = experiments.scale_sweep()
        self.labels = [f"t{i + 1}" for i in range(len(self.frames[0]["row"]))]
        self.frame = 9  # c = 1.0, the operating point
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="exp-main"):
            with Vertical(id="exp-left"):
                with Vertical(id="exp-variance", classes="exp-box") as box:
                    box.border_title = "Variance  Var(q·k) = d_k;  Var(q·k/√d_k) = 1"
                    with Horizontal(id="exp-controls"):
                        yield Label("custom d_k")
                        yield OrderedInput("128", id="in-d_k")
                        yield Label("n")
                        yield OrderedInput("5000", id="in-n")
                        yield Label("seed")
                        yield OrderedInput("8", id="in-seed")
                    yield ProgressBar(id="var-progress", show_eta=False)
                    yield ProgressLine(" ", id="var-status", markup=False)
                    yield Static(id="var-table")
                    yield Static(id="var-note", classes="exp-note", markup=False)
                    yield DotHistogram(id="var-hist")
            with Vertical(id="exp-right"):
                with Vertical(id="exp-saturation", classes="exp-box") as box:
                    box.border_title = "Saturation  d_k = 512, T = 8, row 1"
                    yield Static(id="sat-table")
                with Vertical(id="exp-sweep", classes="exp-box") as box:
                    box.border_title = "Scale sweep  softmax(c·s), c = 0.1 … 3.0"
                    yield ProgressLine(id="sweep-status", markup=False)
                    yield Static(sweep_compare(), id="sweep-compare", markup=False)
                    yield SweepCharts()
        yield KeyBar(keys.bar_label, id="keybar")  # drops low-priority keys on a narrow screen

    def on_mount(self) -> None:
        self.show_saturation(8)
        self.show_frame()
        self.action_run()

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "variance")

    # -- variance (thread worker) ---------------------------------------------
    def settings(self) -> tuple[dict | None, str | None]:
        return parse_settings({k: self.query_one(f"#in-{k}", Input).value for k in LIMITS})

    def action_run(self) -> None:
        params, err = self.settings()
        if err:
            self.app.notes.say(err, severity="error", timeout=4)
            self.query_one("#var-status", ProgressLine).update(err)
            return
        assert params is not None  # settings(): the values, or one line why not
        dks = tuple(experiments.DKS) + (params["d_k"],)
        self.query_one("#var-progress", ProgressBar).update(total=len(dks), progress=0)
        self.query_one("#var-status", ProgressLine).update(f"running n = {params['n']:,}, seed = {params['seed']} …")
        self.show_saturation(params["seed"])
        self.run_variance(dks, params["n"], params["seed"])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Run with the typed settings; focus stays in the field (escape leaves it)."""
        event.stop()
        self.action_run()

    def action_leave_inputs(self) -> None:
        self.set_focus(None)

    @work(thread=True, exclusive=True, group="variance")
    def run_variance(self, dks, n: int, seed: int) -> None:
        """Off the event loop: one d_k at a time, seed + j as core.variance does."""
        worker = get_current_worker()
        rows, dots = [], {}
        for j, d_k in enumerate(dks):
            if worker.is_cancelled:
                return
            rows += experiments.variance([d_k], n, seed + j)
            dots[d_k] = experiments.dot_samples(d_k, min(n, HIST_N), seed + j)
            self.app.call_from_thread(self._progress, j + 1, len(dks))
        if not worker.is_cancelled:
            self.app.call_from_thread(self.show_variance, rows, dots, n, seed)

    def _progress(self, done: int, total: int) -> None:
        self.query_one("#var-progress", ProgressBar).update(progress=done, total=total)

    def show_variance(self, rows, dots, n: int, seed: int) -> None:
        self.var_rows, self.dots = rows, dots
        self.query_one("#var-table", Static).update(variance_table(rows, LESSON_PRINTED["variance"]))
        self.query_one("#var-note", Static).update(rng_note([r["d_k"] for r in rows], n, seed))
        self.query_one("#var-status", ProgressLine).update(f"done: n = {n:,}, seed = {seed}")
        self.show_hist()

    def show_hist(self) -> None:
        if not self.var_rows:
            return
        d_k = self.var_rows[self.hist_index % len(self.var_rows)]["d_k"]
        self.query_one(DotHistogram).show(self.dots[d_k], d_k)

    def action_next_hist(self) -> None:
        self.hist_index += 1
        self.show_hist()

    def show_saturation(self, seed: int) -> None:
        res = experiments.saturation(seed=seed)
        from rich.console import Group

        table = saturation_text(res, LESSON_PRINTED["saturation"])
        self.query_one("#sat-table", Static).update(Group(table, saturation_words(res)))

    # -- the sweep ------------------------------------------------------------
    def show_frame(self) -> None:
        fr = self.frames[self.frame]
        state = "▶ playing" if self._timer else "❚❚ paused"
        self.query_one("#sweep-status", ProgressLine).update(
            f"frame {self.frame + 1}/{len(self.frames)}  c = {fr['c']:.2f}  H = {fr['H']:.2f} bits  {state}"
        )
        ylim = experiments.sweep_ylim(self.frames)
        self.query_one(SweepCharts).show(fr, self.labels, math.log2(len(self.labels)), ylim)

    def action_step(self, delta: int) -> None:
        self.frame = (self.frame + delta) % len(self.frames)
        self.show_frame()

    def action_play(self) -> None:
        if self._timer:
            self._timer.stop()
            self._timer = None
        else:
            self._timer = self.set_interval(1 / FPS, lambda: self.action_step(1))
        self.show_frame()

    def on_screen_suspend(self) -> None:
        if self._timer:
            self.action_play()  # pause when the learner leaves

    def action_scroll_panels(self, pages: int) -> None:
        main = self.query_one("#exp-main")
        main.scroll_relative(y=pages * max(1, main.size.height - 2), animate=False)

    def action_export(self) -> None:
        """Ask for a folder (default ./softmax_sharpening), then write the sweep there."""
        default = str(self.export_dir) if self.export_dir is not None else EXPORT_DEFAULT
        self.app.push_screen(
            FolderExportScreen(
                self._apply_export,
                default,
                title="Export the scale sweep (an animated SVG + one SVG per frame) into the folder",
            )
        )

    def _apply_export(self, path: str, overwrite: bool) -> str | None:
        """None when written, SaveScreen.EXISTS to ask first, or the one-line reason."""
        if not path:
            return f"type a folder, e.g. {EXPORT_DEFAULT}"
        try:
            directory = rooted(path)  # served: below the root
        except (ValueError, RuntimeError) as exc:
            return f"not exported: {exc}"
        if directory.exists() and not directory.is_dir():
            return f"{directory}: is a file; type a folder"
        if not overwrite and sweep_export.existing(directory):
            return SaveScreen.EXISTS
        try:
            out = sweep_export.export(self.frames, self.labels, directory, fps=FPS)
        except OSError as e:
            return f"export: cannot write to {directory}: {e.strerror or e}"
        self.export_dir = directory
        self.app.notes.say(
            f"Sweep exported: {out} (animated) and {out.stem}_frames/ ({len(self.frames)} SVGs)",
            title="Export",
            timeout=8,
        )
        return None

"""The training screen: watch one head learn associative recall, and measure what 1/√d_k does.

space runs or pauses (a thread worker takes the steps; the screen draws snapshots, so the
UI and the other screens keep answering), n takes one step, r resets with the typed
controls, u flips scaled/unscaled, c runs the scaled-vs-unscaled comparison at d_k = 4, 64,
256, v shows W_Q·W_Kᵀ or the comparison, s saves the learned head (W_Q, W_K; W_V = I is fixed)
with the probe sequence as a TOML scenario and opens it on the pipeline.

The comparison's six runs go to child processes, one a CPU (core/train/pool.py; a thread would
hold the GIL the screen needs, on one core); a thread worker waits on them and says each finished
run. c pauses a live run; leaving for another mode or c again kills the processes.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Input, Label, Static
from textual.worker import get_current_worker

from ...core.machine import cpus
from ...core.train import compare
from ...core.train.pool import Runs
from ...core.train.run import Config, Trainer
from .. import keys
from ..views import train_view as tv
from ..widgets.exp_panels import ProgressLine
from ..widgets.key_bar import KeyBar
from ..widgets.matrix_grid import MatrixGrid
from ..widgets.ordered_input import OrderedInput
from ..widgets.train_charts import TrainCurves
from .files import SaveScreen
from .keyed_grid import KeyedGrid
from .learned_head import SAVE_DEFAULT, save_learned

if TYPE_CHECKING:
    from typing import Any

    from ..app import AttentionApp

FRAME = 1 / 15  # seconds between drawn frames while training (pacing: a run is watched, not just done)
STEPS_PER_FRAME = 4  # 60 steps a second: the default 300 steps take about 5 s to watch


class TrainScreen(Screen):
    """One head learning associative recall: curves, the probe's A, W_Q·W_Kᵀ, the comparison."""

    if TYPE_CHECKING:  # the explorer's app, for the type checker (the app module is above the screens)
        app: AttentionApp

    HELP = (
        "Train one attention head on associative recall: the probe's rows move onto their matching keys as the "
        "loss falls; compare scaled and unscaled scores at d_k = 4, 64, 256."
    )
    AUTO_FOCUS = ""  # letters are keys until the learner tabs into a control
    name_for_keys = "train"
    shows_state = False  # the explorer's knobs and edits are off here (AttentionApp.check_action)
    BINDINGS = keys.bindings("train")
    CSS_PATH = "train.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # train.tcss: one column when narrow

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.config = Config()
        self.trainer = Trainer(self.config)
        self.running = False
        self.generation = 0  # a reset starts a new one; a stale worker's frames are dropped
        self.runs = 0  # each press of run starts one; only the latest may say it stopped
        self.compare_runs: Runs | None = None  # the comparison's processes while it runs
        self._compare_words = ""  # what the running comparison is, for its progress line
        self._ticker: Timer | None = None  # once a second while it runs: the progress line's seconds
        self._wake = threading.Event()  # pausing wakes the worker out of its frame wait
        self._lock = threading.Lock()  # one step at a time: a stopping worker may still be in one

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="train-main"):
            with Horizontal(id="train-controls"):
                for key, value in (("lr", self.config.lr), ("d_k", self.config.d_k), ("steps", self.config.steps)):
                    yield Label(key)
                    yield OrderedInput(str(value), id=f"in-{key}")  # any text: the form names what is not a number
                yield Label("seed")
                yield OrderedInput(str(self.config.seed), id="in-seed")
                yield Static(id="train-scale", markup=False)
            yield ProgressLine(id="train-status", markup=False)
            with Horizontal(id="train-top"):
                yield TrainCurves(id="train-curves")
                with Vertical(id="train-right"):
                    yield KeyedGrid("A", id="train-probe")
                    yield Static(id="train-figures", markup=False)
            with ContentSwitcher(initial="train-qk", id="train-bottom"):
                yield KeyedGrid("W_Q·W_Kᵀ", id="train-qk")
                with VerticalScroll(id="train-compare"):
                    yield ProgressLine(id="compare-status", markup=False)
                    yield Static(id="compare-text", markup=False)
        yield KeyBar(keys.bar_label, id="keybar")

    def on_mount(self) -> None:
        for grid in self.query(MatrixGrid):
            grid.can_focus = False
        self.query_one("#compare-status", ProgressLine).update(tv.compare_hint(compare.DKS))
        self.draw(tv.snapshot(self.trainer))
        self._ticker = self.set_interval(1.0, self._compare_progress, pause=True)  # the progress line's seconds

    def on_unmount(self) -> None:
        self._pause()
        self.workers.cancel_group(self, "train")
        self._stop_compare()

    def on_screen_suspend(self) -> None:
        if self not in self.app.screen_stack:  # another mode, not a dialog over this screen
            self._stop_compare("the comparison was stopped when you left this screen: c runs it again")

    # -- drawing ---------------------------------------------------------------
    def draw(self, s: tv.Snapshot) -> None:
        self.query_one("#train-status", ProgressLine).update(tv.status(s))
        self.query_one("#train-scale", Static).update(f"{tv.scale_words(s.config)}\n{tv.KEYS_HINT}")
        self.query_one(TrainCurves).show(tv.curves(s))
        probe = self.query_one("#train-probe", MatrixGrid)
        probe.border_title = tv.probe_title(s)
        probe.show(s.A, s.q_labels, s.k_labels, kind="seq", lo=0.0, hi=1.0)
        qk = self.query_one("#train-qk", MatrixGrid)
        qk.border_title = tv.qk_title(s)
        names = tv.symbols(s.B.shape[0])
        qk.show(s.B, names, names, kind="div")
        self.query_one("#train-figures", Static).update(tv.figures(s))

    def _frame(self, generation: int, s: tv.Snapshot) -> None:
        if generation == self.generation:
            self.draw(s)

    # -- run / pause / step / reset -------------------------------------------------
    def _pause(self) -> None:
        self.running = False
        self._wake.set()  # out of its frame wait: the worker sees it at once

    def action_run(self) -> None:
        if self.running:
            self._pause()
            return
        if self.trainer.done:
            self.app.notes.say("This run is done: r resets it (with the controls' values).", timeout=4)
            return
        self.running = True
        self._wake.clear()
        self.runs += 1
        self.train(self.generation, self.runs)

    @work(thread=True, exclusive=True, group="train")
    def train(self, generation: int, run: int) -> None:
        """Off the event loop: a few steps, a snapshot to draw, a frame's wait; until done or paused."""
        worker, tr = get_current_worker(), self.trainer
        while self.running and not tr.done and not worker.is_cancelled:
            with self._lock:
                for _ in range(STEPS_PER_FRAME):
                    if worker.is_cancelled or generation != self.generation:
                        return  # a reset or a new run: this one is dropped
                    if tr.done:
                        break
                    tr.step()
                snap = tv.snapshot(tr, running=not tr.done)
            if worker.is_cancelled:
                return
            self.app.call_from_thread(self._frame, generation, snap)
            if FRAME:
                self._wake.wait(FRAME)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._stopped, run)

    def _stopped(self, run: int) -> None:
        if run == self.runs:  # not when run was pressed again meanwhile
            self.running = False
            self.draw(tv.snapshot(self.trainer))

    def action_step(self) -> None:
        if self.running:
            self.app.notes.say("Training: space pauses it first.", timeout=3)
            return
        if self.trainer.done:
            self.app.notes.say("This run is done: r resets it.", timeout=3)
            return
        with self._lock:
            self.trainer.step()
            snap = tv.snapshot(self.trainer)
        self.draw(snap)

    def action_reset(self, **changes) -> None:
        """A new run from the typed controls (and ``changes``); a bad control keeps the current run."""
        values, err = tv.parse_controls({k: self.query_one(f"#in-{k}", Input).value for k in tv.CONTROLS})
        if err:
            self.app.notes.say(f"{err}; the current run is kept", severity="error", timeout=5)
            self.query_one("#train-status", ProgressLine).update(err)
            return
        assert values is not None  # parse_controls: the values, or one line why not
        self._pause()
        self.workers.cancel_group(self, "train")
        self.generation += 1
        self.config = self.config.with_(**values, **changes)
        self.trainer = Trainer(self.config)
        self.draw(tv.snapshot(self.trainer))

    def action_toggle_scaled(self) -> None:
        self.action_reset(scaled=not self.config.scaled)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_reset()

    def action_leave_inputs(self) -> None:
        self.set_focus(None)

    # -- the comparison --------------------------------------------------------------
    def action_compare(self) -> None:
        cfg, dks = self.config.with_(steps=compare.COMPARE_STEPS), compare.DKS
        self.query_one(ContentSwitcher).current = "train-compare"
        paused = self.running
        self._pause()  # the live run and its chart would take a CPU from the comparison's processes
        self._stop_compare()
        try:
            runs = Runs(compare.plan(cfg, dks), cpus())
        except OSError as exc:
            self.query_one("#compare-status", ProgressLine).update(f"the comparison did not start: {exc}")
            return
        self.compare_runs = runs
        self._compare_words = tv.compare_running(cfg, dks, len(runs.processes), paused)
        self._compare_progress()
        assert self._ticker is not None  # made on mount
        self._ticker.resume()
        self.run_compare(dks, runs)

    @work(thread=True, exclusive=True, group="compare")
    def run_compare(self, dks: tuple, runs: Runs) -> None:
        """Off the event loop: wait on the processes, say each finished run, then show the rows."""
        worker = get_current_worker()
        summaries: list = [None] * len(runs.configs)
        try:
            for i, summary in runs.results(stop=lambda: worker.is_cancelled):
                summaries[i] = summary
                self.app.call_from_thread(self._compare_progress)
        except RuntimeError as exc:  # a process died (not killed by us): say so, one line
            self.app.call_from_thread(self.show_compare, runs, why=f"the comparison failed: {exc}")
            return
        if not (worker.is_cancelled or runs.cancelled):
            self.app.call_from_thread(self.show_compare, runs, compare.rows_of(dks, summaries))

    def _compare_progress(self) -> None:
        if (runs := self.compare_runs) is not None:
            seconds = time.monotonic() - runs.started
            line = tv.compare_progress(self._compare_words, runs.done, len(runs.configs), seconds)
            self.query_one("#compare-status", ProgressLine).update(line)

    def _stop_compare(self, why: str | None = None) -> None:
        """Kill the running comparison's processes (none running: nothing) and say ``why``."""
        runs, self.compare_runs = self.compare_runs, None
        if self._ticker is not None:
            self._ticker.pause()
        if runs is None:
            return
        runs.cancel()
        self.workers.cancel_group(self, "compare")
        if why:
            self.query_one("#compare-status", ProgressLine).update(why)

    def show_compare(self, runs: Runs, rows: list[dict] | None = None, why: str = "") -> None:
        """The rows ``runs`` measured, or why there are none; nothing if another comparison began since."""
        if runs is not self.compare_runs:
            return
        self.compare_runs = None  # its processes have ended (its worker too, once this returns)
        assert self._ticker is not None  # made on mount
        self._ticker.pause()
        self.query_one("#compare-status", ProgressLine).update(why)
        if rows is not None:
            self.query_one("#compare-status", ProgressLine).update(tv.compare_measured(rows))
            self.query_one("#compare-text", Static).update(tv.comparison(rows))

    def action_toggle_view(self) -> None:
        sw = self.query_one(ContentSwitcher)
        sw.current = "train-compare" if sw.current == "train-qk" else "train-qk"

    def action_scroll_panels(self, pages: int) -> None:
        main = self.query_one("#train-main")
        main.scroll_relative(y=pages * max(1, main.size.height - 2), animate=False)

    def try_it(self) -> None:
        """The tour's "try it": run the comparison here."""
        self.action_compare()

    # -- open the learned head in the explorer ------------------------------------------
    def action_explore(self) -> None:
        self._pause()
        path = self.app.paths.save if self.app.paths.save.endswith(SAVE_DEFAULT) else SAVE_DEFAULT
        self.app.push_screen(
            SaveScreen(lambda to, overwrite: save_learned(self.app, self.trainer, to, overwrite), path)
        )

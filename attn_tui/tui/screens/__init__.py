"""The registry of the app's screens (Textual modes), one entry each.

To add a screen (lenses `l`, experiments `x`, tour `t`, ...), append a ScreenEntry to
SCREENS below. The app builds its MODES from this dict, and keys.py derives the key
that switches to it (action ``app.switch_mode('<name>')``), its footer entry, its
command-palette entry and its line in the help screen, so nothing else needs editing.
The screen class is imported lazily from ``target`` ("module:Class"); a screen reads
``self.app.state`` and observes it with ``self.watch(self.app, "state", callback)``.
"""

from __future__ import annotations

from importlib import import_module
from typing import NamedTuple


class ScreenEntry(NamedTuple):
    name: str  # the Textual mode name
    key: str  # the key that switches to it
    title: str  # short, for the footer and the palette
    target: str  # "package.module:ScreenClass", imported on first use
    help: str  # one sentence for the help screen and the palette
    footer: bool = True  # its key in the key bar (False: help and palette only)

    def factory(self):
        """A zero-argument callable that makes the screen (what Textual's MODES wants)."""

        def make():
            module, cls = self.target.split(":")
            return getattr(import_module(module), cls)()

        return make


SCREENS: dict[str, ScreenEntry] = {
    "pipeline": ScreenEntry(
        "pipeline",
        "p",
        "Pipeline",
        "attn_tui.tui.screens.pipeline:PipelineScreen",
        "the whole pipeline X → Q, K, V → S → M → A → O, the softmax chart and the entropies",
    ),
    "lenses": ScreenEntry(
        "lenses",
        "l",
        "Lenses",
        "attn_tui.tui.screens.lenses:LensesScreen",
        "the selected row read as a correlation receiver, a kernel smoother (and its box kernel), "
        "an associative memory; rank, gradient, cost",
    ),
    "experiments": ScreenEntry(
        "experiments",
        "x",
        "Experiments",
        "attn_tui.tui.screens.experiments:ExperimentsScreen",
        "variance of q·k against d_k, saturation at d_k = 512, the scale sweep (play, step, export)",
    ),
    "tour": ScreenEntry(
        "tour",
        "t",
        "Tour",
        "attn_tui.tui.screens.tour:TourScreen",
        "the lesson page by page beside its live panes, with a try-it for each exercise",
    ),
    "train": ScreenEntry(
        "train",
        "L",
        "Train",
        "attn_tui.tui.screens.train:TrainScreen",
        "train one head on associative recall and watch it learn; compare scaled and unscaled scores",
        footer=False,  # the key bars of the other screens stay as they were
    ),
    "heads": ScreenEntry(
        "heads",
        "h",
        "Heads",
        "attn_tui.tui.screens.heads:HeadsScreen",
        "every head of a layer side by side: A cell for cell where it fits, entropy against log₂ t, "
        "previous-token, first, self and induction scores, sortable; enter opens a head (induction-demo or a "
        "multi-head file)",
        footer=False,  # the other screens' key bars stay as they were
    ),
    "tokens": ScreenEntry(
        "tokens",
        "T",
        "Tokens",
        "attn_tui.tui.screens.tokens:TokensScreen",
        "the sequence as text, each token shaded by the weight the selected query gives it (row t of A), "
        "the query underlined; f flips to who looks at t; > < } { step through heads and layers",
    ),
    "model": ScreenEntry(
        "model",
        "M",
        "Model view",
        "attn_tui.tui.screens.model:ModelScreen",
        "where the selected query looks in every head of its layer (M again: every layer), "
        "each head's five heaviest keys as text with weights",
        footer=False,
    ),
}
HOME = "pipeline"

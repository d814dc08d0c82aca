"""Pickers for the scenario's settings: mask, fill, dtype (one list each) and padded key positions.

ChoiceScreen lists options with a one-line note each (from the lesson) and starts on
the current one; `enter` picks, `escape` cancels. PaddingScreen lists the key
tokens; `space` pads/unpads, `enter` applies. Options that do not make sense
(a causal mask over an unrelated Y) are shown disabled, with the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from ...core.modes import causal_allowed

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario

CSS_PATH = "dialogs.tcss"


class ChoiceScreen(ModalScreen):
    """options: [(value, text, enabled)]. Dismisses with the picked value or None."""

    CSS_PATH = CSS_PATH
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, title: str, options, current=None, hint: str = "") -> None:
        super().__init__()
        self.title_text, self.options, self.current = title, list(options), current
        self.hint = hint or "up/down: choose · enter: pick · escape: cancel"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield OptionList(
                *(
                    Option(("● " if v == self.current else "  ") + text, id=str(i), disabled=not ok)
                    for i, (v, text, ok) in enumerate(self.options)
                ),
                id="choices",
            )
            yield Static(self.hint, classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        values = [v for v, _, _ in self.options]
        if self.current in values:
            ol.highlighted = values.index(self.current)
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        assert event.option.id is not None  # every option is made with its index as id
        self.dismiss(self.options[int(event.option.id)][0])

    def action_cancel(self) -> None:
        self.dismiss(None)


def mask_options(s: Scenario):
    """(value, text, enabled) for the mask picker; causal/window disabled with the reason."""
    ok, why = causal_allowed(s)
    w = s.window or 2
    opts: list[tuple[str | None, str, bool]] = [
        ("causal", "causal: token t reads tokens 1..t (M = the fill above the diagonal)", ok),
        ("none", "none: every token reads every key (exercise 2: drop the mask)", True),
        ("window", f"sliding window: token t reads only the last w tokens (now w = {w}; asked next)", ok),
    ]
    if not ok:
        opts.append((None, "  why not causal: " + why, False))
    return opts


FILL_OPTIONS = [
    ("-1e9", "-1e9: the lesson's finite stand-in for -inf (overflows to -inf in float16)", True),
    ("-inf", "-inf: the math's value; a fully masked row gives -inf - (-inf) = NaN", True),
    ("min", "dtype min: the most negative finite number of the dtype (what frameworks use)", True),
]

DTYPE_OPTIONS = [
    ("float64", "float64: 53-bit mantissa, max 1.8e308 (NumPy's default)", True),
    ("float32", "float32: 24-bit mantissa, max 3.4e38 (a GPU's usual dtype)", True),
    ("float16", "float16: 11-bit mantissa, max 65504 (-1e9 overflows to -inf)", True),
]


class KeyList(SelectionList):
    """A SelectionList whose space toggles at once and whose enter applies the screen.

    Both run in this widget's own queue, in the order typed: SelectionList's own space
    goes through a message that a fast `enter` (or a priority binding) could overtake.
    """

    BINDINGS = [Binding("space", "toggle_now", "Pad/unpad", show=False), Binding("enter", "apply", "Apply", show=False)]

    def action_toggle_now(self) -> None:
        if self.highlighted is not None:
            self.toggle(self.get_option_at_index(self.highlighted))

    def action_apply(self) -> None:
        screen = self.screen
        assert isinstance(screen, PaddingScreen)  # the one screen a KeyList is on
        screen.action_apply()


class PaddingScreen(ModalScreen):
    """Pick padded key positions. keys: key labels; padded: 1-based positions.

    Dismisses with a tuple of 1-based positions, or None on escape.
    """

    CSS_PATH = CSS_PATH
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, keys, padded) -> None:
        super().__init__()
        self.keys, self.padded = tuple(keys), set(padded)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Key padding: no query may read a padded key", classes="dialog-title", markup=False)
            yield KeyList(
                *((Content(f"{i + 1}: {k}"), i + 1, i + 1 in self.padded) for i, k in enumerate(self.keys)),
                id="padding",
            )
            yield Static(
                "space: pad/unpad · enter: apply · escape: cancel. Pad key 1 with fill -inf "
                "to see a fully masked row turn NaN.",
                classes="dialog-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        sl = self.query_one(SelectionList)
        sl.highlighted = 0  # space works at once, before any arrow key
        sl.focus()

    def action_apply(self) -> None:
        self.dismiss(tuple(sorted(self.query_one(SelectionList).selected)))

    def action_cancel(self) -> None:
        self.dismiss(None)

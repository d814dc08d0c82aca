"""Open, save and export dialogs: a path prompt (plus the built-ins when opening)
and a yes/no confirmation before anything is overwritten.

The dialogs only collect a choice; the app does the work through an ``apply``
callback that returns None (done, the dialog closes) or the one-line reason it
failed, which stays on screen under the prompt.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.builtins import BUILTINS
from ...core.heads.demo import HEAD_BUILTINS
from ..widgets.ordered_input import OrderedInput
from .dialog import AnswerDialog

CSS_PATH = "dialogs.tcss"


class _PathDialog(AnswerDialog):
    """Title, a path Input, optional options under it, and a message line."""

    CSS_PATH = CSS_PATH
    HINT = ""
    PLACEHOLDER = "path, e.g. my-scenario.toml"

    def __init__(self, apply: Callable[..., str | None], path: str = "") -> None:
        super().__init__()
        self.apply, self.path = apply, path

    def title_text(self) -> str:
        return ""

    def extra(self) -> ComposeResult:
        yield from ()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text(), classes="dialog-title", markup=False)
            yield OrderedInput(self.path, id="path", placeholder=self.PLACEHOLDER)
            yield from self.extra()
            yield Static(self.HINT, classes="dialog-message", id="message", markup=False)

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    def show(self, reason: str | None) -> None:
        self.answer(reason)


class OpenScreen(_PathDialog):
    """Open a scenario: type a path and press enter, or pick a built-in (tab, enter)."""

    HINT = "enter: open the path · tab: built-ins · escape: cancel"

    def title_text(self) -> str:
        return "Open a scenario (TOML, .npz or .safetensors file, or a built-in)"

    def extra(self) -> ComposeResult:
        yield OptionList(
            *(
                Option(f"{name}: {fn.__doc__.strip().splitlines()[0] if fn.__doc__ else ''}", id=name)
                for name, fn in {**BUILTINS, **HEAD_BUILTINS}.items()
            ),
            id="builtins",
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.show(self.apply(event.value.strip()))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.show(self.apply(event.option.id))


class SaveScreen(_PathDialog):
    """Save to TOML. apply(path, overwrite) -> None, a reason, or EXISTS to ask first."""

    HINT = "enter: save (atomic; asks before overwriting) · escape: cancel"
    EXISTS = "exists"
    QUESTION = "{path} exists. Overwrite it?"
    CHANGED = "changed"  # the file was written by another program since this explorer opened or saved it
    CHANGED_QUESTION = (
        "{path} changed on disk since this explorer opened or saved it (another explorer or program "
        "wrote it). Overwrite those changes?"
    )

    def title_text(self) -> str:
        return "Save the scenario as TOML"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        reason = self.apply(path, False)
        if reason in (self.EXISTS, self.CHANGED):
            question = self.QUESTION if reason == self.EXISTS else self.CHANGED_QUESTION
            self.app.push_screen(
                ConfirmScreen(question.format(path=path)),
                lambda yes: self.show(self.apply(path, True)) if yes else None,
            )
            return
        self.show(reason)


class FolderExportScreen(SaveScreen):
    """Export into a folder (the scale sweep's SVGs): the same prompt and overwrite question.

    apply(path, overwrite) -> None, a reason, or SaveScreen.EXISTS.
    """

    HINT = "enter: export into this folder (created if missing; asks before overwriting) · escape: cancel"
    QUESTION = "{path}: the sweep's files exist there. Overwrite them?"
    PLACEHOLDER = "a folder, e.g. softmax_sharpening"

    def __init__(self, apply, path: str = "", title: str = "Export into a folder") -> None:
        super().__init__(apply, path)
        self._title = title

    def title_text(self) -> str:
        return self._title


class ExportScreen(_PathDialog):
    """Export: a folder for CSV/.npy (one file per matrix) or a file for an SVG screenshot.

    apply(path, fmt, overwrite) -> None, a reason, or SaveScreen.EXISTS.
    """

    HINT = "type a folder (or a .svg file), then pick a format and press enter · escape: cancel"
    FORMATS = [
        ("csv", "CSV: one NAME.csv per matrix in the folder (labels in row 1 / column 1)"),
        ("npy", "NumPy .npy: one NAME.npy per matrix in the folder, in the scenario's dtype"),
        ("svg", "SVG screenshot of the screen behind this dialog"),
    ]

    def title_text(self) -> str:
        return "Export the current matrices"

    def extra(self) -> ComposeResult:
        yield OptionList(*(Option(text, id=f) for f, text in self.FORMATS), id="formats")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#formats", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        path, fmt = self.query_one("#path", Input).value.strip(), event.option.id
        reason = self.apply(path, fmt, False)
        if reason == SaveScreen.EXISTS:
            self.app.push_screen(
                ConfirmScreen(f"{path}: files exist. Overwrite them?"),
                lambda yes: self.show(self.apply(path, fmt, True)) if yes else None,
            )
            return
        self.show(reason)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: `y` or enter on Yes confirms; `n` or escape declines."""

    CSS_PATH = CSS_PATH
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title", markup=False)
            yield OptionList(Option("No, keep the file", id="no"), Option("Yes, overwrite", id="yes"), id="answer")
            yield Static("y: yes · n / escape: no", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

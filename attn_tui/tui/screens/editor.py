"""The inline cell editor, label rename and small number forms.

Each dialog gets an ``apply`` callback that tries the change and returns None on
success or the one-line reason it was refused; a refusal is shown inline, in the
dialog, and the old value stays. `enter` commits, `escape` cancels.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Offset, Region
from textual.widgets import Input, Label, Static

from ..widgets.ordered_input import OrderedInput
from .dialog import AnswerDialog

Apply = Callable[[str], "str | None"]
CSS_PATH = "dialogs.tcss"
BOX_W, BOX_H = 44, 6  # the editor box: border + title + input + message (2 rows)


class CellEditor(AnswerDialog):
    """A small editor anchored at a cell's screen region (or centred without one).

    title: e.g. "X[t2 was, verb]  row 2, column 2". value: the text to start with.
    apply(text) -> None (committed, the dialog closes) or the reason (shown in red).
    Dismisses with True when something was committed, False on escape.
    """

    MESSAGE_ID = "editor-message"
    CSS_PATH = CSS_PATH

    def __init__(
        self,
        title: str,
        value: str,
        apply: Apply,
        anchor: Region | None = None,
        hint: str = "enter: commit · escape: cancel",
    ) -> None:
        super().__init__()
        self.title_text, self.value, self.apply, self.hint = title, value, apply, hint
        self.anchor_region = anchor  # not self.anchor: a Widget method of that name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="editor-box"):
            yield Label(self.title_text, classes="dialog-title", id="editor-title", markup=False)
            yield OrderedInput(self.value, id="editor-input", select_on_focus=True, compact=True)
            yield Static(self.hint, classes="dialog-message", id="editor-message", markup=False)

    def on_mount(self) -> None:
        box = self.query_one("#editor-box")
        if self.anchor_region is None:
            self.styles.align = ("center", "middle")
        else:
            box.styles.offset = _place(self.anchor_region, self.app.size)
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(self.apply(event.value))


def _place(cell: Region, screen) -> Offset:
    """Top-left of the editor box so its input line covers ``cell``, kept on screen.

    The input's row is 2 rows below the box top (border, title), its text 2 columns in.
    """
    x = max(0, min(cell.x - 2, screen.width - BOX_W))
    y = cell.y - 2
    if y < 0:
        y = cell.y + 1  # no room above: open below the cell
    return Offset(x, max(0, min(y, screen.height - BOX_H - 1)))


class FormScreen(AnswerDialog):
    """A few labelled number fields (d_model/d_k/d_v, random scenario parameters).

    fields: [(key, label, value)]. apply({key: text}) -> None or the reason.
    `tab` moves between fields; `enter` in any field applies the whole form.
    """

    MESSAGE_ID = "form-message"
    CSS_PATH = CSS_PATH

    def __init__(self, title: str, fields, apply: Callable[[dict], str | None], hint: str = "") -> None:
        super().__init__()
        self.title_text, self.fields, self.apply = title, list(fields), apply
        tab = "tab: next field · " if len(self.fields) > 1 else ""  # one field: nothing to tab to
        self.hint = hint or f"{tab}enter: apply · escape: cancel"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="form-box"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            for key, label, value in self.fields:
                with Horizontal(classes="form-row"):
                    yield Label(label, markup=False)
                    # any text ("2.5" kept, not "25"): apply names what is not a whole number
                    yield OrderedInput(str(value), id=f"field-{key}", compact=True)
            yield Static(self.hint, classes="dialog-message", id="form-message", markup=False)

    def on_mount(self) -> None:
        self.query(Input).first().focus()

    def values(self) -> dict:
        return {key: self.query_one(f"#field-{key}", Input).value for key, _, _ in self.fields}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(self.apply(self.values()))

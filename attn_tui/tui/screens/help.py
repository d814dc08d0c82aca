"""Help: what each pane shows, in the lesson's words, and every key (from keys.py)."""

from __future__ import annotations

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .. import keys
from ..views import help_text
from ..views.grids import PANE_HELP
from . import SCREENS


def help_markdown() -> str:
    panes = "\n".join(f"- {text}" for text in PANE_HELP.values())
    screens = "\n".join(f"- `{e.key}` **{e.title}**: {e.help}" for e in SCREENS.values())
    rows = "\n".join(f"| `{keys.key_label(k)}` | {k.description} | {k.help} | {k.scope} |" for k in keys.all_keys())
    return (
        f"{help_text.intro()}\n## Panes\n\n{panes}\n- {help_text.chart()}\n- {help_text.INSPECTOR}\n\n"
        f"## Screens\n\n{screens}\n\n"
        f"## Keys\n\n| key | action | what it does | where |\n|---|---|---|---|\n{rows}\n\n"
        "Every action is also in the command palette (`ctrl+p`). Press `escape` or `?` to close.\n"
    )


class HelpScreen(ModalScreen):
    """The scenario's title, then a scrollable Markdown page; escape, ? or q closes it."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close help")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            state = getattr(self.app, "state", None)
            if state is not None:  # the whole title (the status line cuts it on a narrow screen)
                yield Static(f"Scenario: {state.scenario.title}", id="help-scenario", markup=False)
            # Rich's Markdown in one Static: Textual's Markdown widget makes a widget per table
            # cell, and the keys table made `?` take ~1.7 s to open.
            yield Static(Markdown(help_markdown(), code_theme="ansi_dark"), id="help-text")

"""Help: what each pane shows, in the lesson's words, and every key (from keys.py)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from rich.markdown import Markdown
from textual.widgets import Static

from .. import keys
from ..views.grids import PANE_HELP
from . import SCREENS

INTRO = """\
# attn-tui: scaled dot-product attention, live

    Attn(Q, K, V) = softmax(c · Q Kᵀ / √d_k + M) V

Each token asks a question (its query), every token advertises an answer (its key), and the
output for a token is a weighted mix of every token's value, weighted by how well the query
matches each key. Dividing by √d_k keeps the scores' variance near 1 whatever d_k is, so the
softmax does not saturate; c multiplies that operating point (the lesson's entropy knob).
"""

CHART = ("Softmax chart: the selected row's scores c·q·k/√d_k (left) and its softmax (right), titled with c "
         "and H(A_t) in bits against the log₂t ceiling. The scale is an entropy knob: turn c up (+) and the "
         "row sharpens toward a hard lookup (H → 0); turn it down (-) and it flattens toward uniform "
         "(H → log₂t). Remove the scale (u) and the rows saturate. With many keys it shows the heaviest.")
INSPECTOR = "Cell inspector: how the cell under the cursor was computed, with the numbers."


def help_markdown() -> str:
    panes = "\n".join(f"- {text}" for text in PANE_HELP.values())
    screens = "\n".join(f"- `{e.key}` **{e.title}**: {e.help}" for e in SCREENS.values())
    rows = "\n".join(
        f"| `{keys.key_label(k)}` | {k.description} | {k.help} | {k.scope} |" for k in keys.all_keys())
    return (f"{INTRO}\n## Panes\n\n{panes}\n- {CHART}\n- {INSPECTOR}\n\n## Screens\n\n{screens}\n\n"
            f"## Keys\n\n| key | action | what it does | where |\n|---|---|---|---|\n{rows}\n\n"
            "Every action is also in the command palette (`ctrl+p`). Press `escape` or `?` to close.\n")


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

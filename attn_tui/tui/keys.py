"""The ONE table of key bindings: key, action, description, help, scope.

Bindings (App/Screen/widget BINDINGS), the footer, the command palette and the help
screen are all built from KEYS. scope: "app" (works on every screen), "grid" (while a
MatrixGrid has focus), or a screen name (while that screen is shown). Keys that switch
screens come from the registry in attn_tui/tui/screens/__init__.py. To add a key, add a row.
No ctrl+digit or F-key is the only way to anything (terminals over SSH may eat them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from .screens import SCREENS
from .state import C_STEP

FAR = 1 << 40  # a cursor move past any matrix's edge: move_cursor clamps it to the first or last row


@dataclass(frozen=True)
class Key:
    key: str  # Textual key name(s), comma separated
    action: str  # action string, run in the scope's namespace
    description: str  # short: footer and palette
    help: str  # one sentence: tooltip, palette help, help screen
    scope: str = "app"
    show: bool = True  # shown in the footer
    display: str | None = None  # how the footer writes the key
    palette: bool = True  # offered in the command palette
    bar: str | None = None  # short label in the pipeline's KeyBar; adjacent rows with one label share an entry


KEYS: list[Key] = [
    Key("question_mark", "help", "Help", "what each pane shows, in the lesson's words, and every key", display="?"),
    Key("q", "quit", "Quit", "leave attn-tui"),
    Key(
        "plus,equals_sign",
        f"knob('scale_by', {C_STEP})",
        "c×1.1",
        f"multiply the scale multiplier c by {C_STEP}: sharper rows, lower entropy",
        display="+",
        bar=f"c ×÷{C_STEP}",
    ),
    Key(
        "minus,underscore",
        f"knob('scale_by', {1 / C_STEP!r})",
        "c÷1.1",
        f"divide c by {C_STEP}: flatter rows, higher entropy",
        display="-",
        bar=f"c ×÷{C_STEP}",
    ),
    Key("0", "knob('reset_scale')", "c=1", "reset c to 1: the 1/√d_k operating point"),
    Key(
        "u",
        "knob('toggle_scaled')",
        "Scale on/off",
        "toggle the 1/√d_k scaling: off shows raw QKᵀ, √d_k times larger: sharper rows, "
        "saturated only when d_k is large",
        bar="Scale",
    ),
    Key(
        "P",
        "knob('toggle_pin')",
        "Pin",
        "pin the state now: A and the entropy table then show ΔA and ΔH "
        "against it, and the charts its row as ┃ ticks (exercises 1, 2: change one thing, read the difference); "
        "P again unpins",
        bar="Pin",
    ),
    Key("m", "knob('toggle_mask')", "Mask", "toggle the causal mask: off lets every token see the future"),
    Key("up", "knob('select_row', -1)", "Row ↑", "select the previous query row t", show=False, palette=False),
    Key("down", "knob('select_row', 1)", "Row ↓", "select the next query row t", show=False, palette=False),
    Key(
        "k,left_square_bracket",
        "knob('select_row', -1)",
        "Row ↑",
        "select the previous query row t (works while a grid has focus)",
        display="k/[",
        bar="row",
    ),
    Key(
        "j,right_square_bracket",
        "knob('select_row', 1)",
        "Row ↓",
        "select the next query row t (works while a grid has focus)",
        display="j/]",
        bar="row",
    ),
    Key("tab", "focus_next", "Next pane", "move the focus to the next pane", show=False),
    Key("shift+tab", "focus_previous", "Prev pane", "move the focus to the previous pane", show=False),
    # While a grid has focus: a cell cursor.
    Key(
        "up",
        "cursor(-1, 0)",
        "Cell ↑",
        "move the cell cursor up (and the query row with it in S, M, A, O)",
        scope="grid",
        show=False,
        palette=False,
    ),
    Key("down", "cursor(1, 0)", "Cell ↓", "move the cell cursor down", scope="grid", show=False, palette=False),
    Key("left", "cursor(0, -1)", "Cell ←", "move the cell cursor left", scope="grid", show=False, palette=False),
    Key("right", "cursor(0, 1)", "Cell →", "move the cell cursor right", scope="grid", show=False, palette=False),
    Key("home", f"cursor({-FAR}, 0)", "First row", "move the cell cursor to the first row", scope="grid", show=False),
    Key("end", f"cursor({FAR}, 0)", "Last row", "move the cell cursor to the last row", scope="grid", show=False),
    Key("pageup", "cursor_page(-1)", "Page ↑", "move the cell cursor a screen of rows up", scope="grid", show=False),
    Key("pagedown", "cursor_page(1)", "Page ↓", "move the cell cursor a screen of rows down", scope="grid", show=False),
    Key(
        "enter",
        "edit",
        "Edit",
        "edit the cell under the cursor (X, W_Q, W_K, W_V, Y, Q, K, V)",
        scope="grid",
        palette=False,
    ),
    # Editing, modes and files: do('name') runs attn_tui/tui/actions' function name.
    Key(
        "ctrl+z",
        "do('undo')",
        "Undo",
        "undo the last change of the scenario: a cell, a label, a token, a mode, c, a file",
    ),
    Key("ctrl+y", "do('redo')", "Redo", "redo the change undo took back", show=False),
    Key(
        "o",
        "do('open')",
        "Open",
        "open a scenario: a TOML, .npz or .safetensors file (path prompt) or a built-in; a bad file changes nothing",
        show=False,
    ),
    Key(
        "s",
        "do('save')",
        "Save",
        "save the scenario as TOML, up to 512 tokens (atomic, asks before overwriting, reloads bit for bit)",
        show=False,
    ),
    Key(
        "e",
        "do('export')",
        "Export",
        "export the matrices as CSV or .npy files (one per matrix, up to 512 tokens), or an SVG screenshot",
        show=False,
    ),
    Key("n", "do('rename_token')", "Rename token", "rename the selected query token", show=False),
    Key(
        "N",
        "do('rename_feature')",
        "Rename feature",
        "rename the feature under the cell cursor (a column of X)",
        show=False,
    ),
    Key(
        "K", "do('rename_key')", "Rename key", "rename the key token under the cursor (a row of Y, K or V)", show=False
    ),
    Key(
        "a",
        "do('add_token')",
        "Add token",
        "insert a token (a zero row of X, or of Q/K/V) after the selected row",
        show=False,
    ),
    Key(
        "D,delete",
        "do('remove_token')",
        "Remove token",
        "remove the selected query token (ctrl+z brings it back)",
        show=False,
        display="D",
    ),
    Key("A", "do('add_key')", "Add key", "cross-attention: add a key token (a zero row of Y)", show=False),
    Key(
        "R",
        "do('remove_key')",
        "Remove key",
        "cross-attention: remove the key token under the cursor (a row of Y)",
        show=False,
    ),
    Key(
        "colon,ctrl+g",
        "do('go_to')",
        "Go to row",
        "select query row t and key i of A by number (a long sequence's far rows)",
        show=False,
        display=":/ctrl+g",
    ),
    Key("g", "do('dims')", "Dimensions", "change d_model, d_k, d_v; new cells start at 0", show=False),
    Key("w", "do('pick_mask')", "Mask kind", "pick the mask: causal, none, or a sliding window of width w", show=False),
    Key("b", "do('pick_padding')", "Padding", "pick padded key positions that no query may read", show=False),
    Key("f", "do('pick_fill')", "Fill", "fill of masked cells: -1e9, -inf or the dtype's min", show=False),
    Key("d", "do('pick_dtype')", "dtype", "compute every step in float64, float32 or float16", show=False),
    Key(
        "c",
        "do('toggle_cross')",
        "Cross-attn",
        "cross-attention on/off: keys and values from a second sequence Y",
        show=False,
    ),
    Key(
        "r", "do('random')", "Random", "a random Gaussian scenario: T (up to 512), d_model, d_k, d_v, seed", show=False
    ),
    # The lenses, experiments and tour screens (attn_tui/tui/screens/{lenses,experiments,tour}.py).
    Key(
        "z",
        "zero_qk",
        "Box kernel",
        "box-kernel switch: set W_Q = W_K = 0 (Q = K = 0) and see A = W_avg "
        "exactly (up to rounding in float32/float16); press again to restore",
        scope="lenses",
    ),
    Key(
        "pagedown",
        "scroll_panels(1)",
        "Page ↓",
        "scroll the lenses down a page (↑/↓ select the row)",
        scope="lenses",
        show=False,
    ),
    Key("pageup", "scroll_panels(-1)", "Page ↑", "scroll the lenses up a page", scope="lenses", show=False),
    Key(
        "r",
        "run",
        "Run",
        "run the variance experiment for d_k = 4, 64, 512 and the custom d_k, "
        "with n and seed from the inputs (tab to them, enter runs)",
        scope="experiments",
    ),
    Key(
        "escape",
        "leave_inputs",
        "Leave input",
        "leave the d_k / n / seed inputs so letters are keys again",
        scope="experiments",
        show=False,
    ),
    Key("d", "next_hist", "Hist d_k", "show the q·k histogram of the next d_k", scope="experiments"),
    Key(
        "space",
        "play",
        "Play/pause",
        "play or pause the scale sweep c = 0.1 … 3.0 (6 frames a second)",
        scope="experiments",
    ),
    Key("right,full_stop", "step(1)", "Frame →", "next frame of the scale sweep", scope="experiments", display="→/."),
    Key("left,comma", "step(-1)", "Frame ←", "previous frame of the scale sweep", scope="experiments", display="←/,"),
    Key(
        "pagedown",
        "scroll_panels(1)",
        "Page ↓",
        "scroll the experiments down a page (on a small terminal)",
        scope="experiments",
        show=False,
    ),
    Key("pageup", "scroll_panels(-1)", "Page ↑", "scroll the experiments up a page", scope="experiments", show=False),
    Key(
        "e",
        "export",
        "Export sweep",
        "export the sweep as an animated SVG and one SVG per frame "
        "into a folder it asks for (default ./softmax_sharpening; asks before overwriting)",
        scope="experiments",
    ),
    # The training screen (attn_tui/tui/screens/train.py).
    Key(
        "space", "run", "Run/pause", "train (a worker takes the steps; the UI keeps answering) or pause", scope="train"
    ),
    Key("n", "step", "Step", "one mini-batch gradient step (while paused)", scope="train"),
    Key(
        "r",
        "reset",
        "Reset",
        "a new run from the typed lr, d_k, steps and seed (enter in a control does it too)",
        scope="train",
    ),
    Key(
        "u", "toggle_scaled", "Scaled/unscaled", "scores scaled by 1/√d_k or raw Q Kᵀ; starts a new run", scope="train"
    ),
    Key(
        "c",
        "compare",
        "Compare",
        "train scaled and unscaled at d_k = 4, 64, 256 with the same seed, batches and lr; show the measured figures",
        scope="train",
    ),
    Key("v", "toggle_view", "View", "below the curves: W_Q·W_Kᵀ or the comparison", scope="train"),
    Key(
        "s",
        "explore",
        "Open in explorer",
        "save the learned W_Q, W_K, W_V with the probe sequence as a TOML scenario and open it on the pipeline",
        scope="train",
    ),
    Key(
        "escape",
        "leave_inputs",
        "Leave input",
        "leave the controls so letters are keys again",
        scope="train",
        show=False,
    ),
    Key("pagedown", "scroll_panels(1)", "Page ↓", "scroll the training screen down a page", scope="train", show=False),
    Key("pageup", "scroll_panels(-1)", "Page ↑", "scroll the training screen up a page", scope="train", show=False),
    Key("space,n", "page(1)", "Next", "next page of the tour", scope="tour", display="space/n"),
    Key("b", "page(-1)", "Back", "previous page of the tour", scope="tour"),
    Key("pagedown", "scroll_panels(1)", "Page ↓", "scroll the live panes down a page", scope="tour", show=False),
    Key("pageup", "scroll_panels(-1)", "Page ↑", "scroll the live panes up a page", scope="tour", show=False),
    Key(
        "y,enter",
        "try_it",
        "Try it",
        "on an exercise page: set up the scenario and screen it needs",
        scope="tour",
        display="y",
    ),
]


def _screen_keys() -> list[Key]:
    return [
        Key(e.key, f"switch_mode({e.name!r})", e.title, f"show the {e.title.lower()} screen: {e.help}", show=e.footer)
        for e in SCREENS.values()
    ]


def all_keys() -> list[Key]:
    """Every row: the table above plus one per registered screen."""
    return KEYS + _screen_keys()


def bindings(scope: str) -> list[Binding]:
    """Textual Bindings for ``scope`` ("app", "grid" or a screen name)."""
    return [
        Binding(
            k.key,
            k.action,
            k.description,
            show=k.show,
            key_display=k.display,
            tooltip=k.help,
            id=f"{k.scope}.{k.action}.{k.key}",
        )
        for k in all_keys()
        if k.scope == scope
    ]


def bar_label(action: str) -> str | None:
    """The KeyBar label of the row whose action is ``action`` (None: its description)."""
    return next((k.bar for k in all_keys() if k.action == action and k.bar), None)


def key_label(k: Key) -> str:
    """How the help screen writes the key ("+", "shift+tab", "k/[")."""
    if k.display:
        return k.display
    return k.key.replace(",", "/")


class KeyCommands(Provider):
    """Every app- and screen-level row of KEYS in the command palette."""

    def _rows(self):
        screen = getattr(self.screen, "name_for_keys", None)
        for k in all_keys():
            if not k.palette or k.scope not in ("app", screen):
                continue
            if k.scope == "app" and self.app.check_action(k.action.split("(")[0], ()) is False:
                continue  # off on this screen (the explorer's knobs on the training screen)
            ns = "app" if k.scope == "app" else "screen"
            yield k, f"{k.description}  · key {key_label(k)}", partial(self.app.run_action, f"{ns}.{k.action}")

    async def discover(self) -> Hits:
        for k, text, run in self._rows():
            yield DiscoveryHit(text, run, help=k.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for k, text, run in self._rows():
            score = max(matcher.match(text), matcher.match(k.help) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(text), run, text=text, help=k.help)

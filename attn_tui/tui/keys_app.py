"""The key table's rows for every screen ("app") and for a focused MatrixGrid ("grid").

attn_tui/tui/keys.py puts them first in KEYS, before the rows of keys_screens.py: the order is
the footer's, the palette's and the help screen's.
"""

from __future__ import annotations

from ..core.matrices import INPUTS
from .key_row import Key
from .state import C_STEP

FAR = 1 << 40  # a cursor move past any matrix's edge: move_cursor clamps it to the first or last row


APP_KEYS: list[Key] = [
    Key("question_mark", "help", "Help", "what each pane shows, in the lesson's words, and every key", display="?"),
    Key("q", "quit", "Quit", "leave attn-tui; a session with edits is kept and offered at the next launch"),
    Key(
        "plus,equals_sign",
        f"do('knobs.scale_by', {C_STEP})",
        f"c×{C_STEP:g}",
        f"multiply the scale multiplier c by {C_STEP}: sharper rows, lower entropy",
        display="+",
        bar="multiplier ×÷",  # no step on the bar: the palette and help say it (from C_STEP)
    ),
    Key(
        "minus,underscore",
        f"do('knobs.scale_by', {1 / C_STEP!r})",
        f"c÷{C_STEP:g}",
        f"divide c by {C_STEP}: flatter rows, higher entropy",
        display="-",
        bar="multiplier ×÷",  # no step on the bar: the palette and help say it (from C_STEP)
    ),
    Key("0", "do('knobs.reset_scale')", "c=1", "reset c to 1: the 1/√d_k operating point"),
    Key(
        "u",
        "do('knobs.toggle_scaled')",
        "Scale on/off",
        "toggle the 1/√d_k scaling: off shows raw QKᵀ, √d_k times larger: sharper rows. They saturate "
        "when the scores are large: at large d_k for zero-mean unit-variance q, k, and already in the "
        "opening pipeline, whose hand-built q, k give large raw scores",
        bar="Scale",
    ),
    Key(
        "P",
        "do('knobs.toggle_pin')",
        "Pin",
        "pin the state now: A and the entropy table then show ΔA and ΔH "
        "against it, and the charts its row as ┃ ticks (exercises 1, 2: change one thing, read the difference); "
        "P again unpins",
        bar="Pin",
    ),
    Key(
        "W",
        "do('knobs.cycle_weighting')",
        "Weighting",
        "what A's grid, the chart and the heads screen show: A as is, value-weighted (A[t,j]·‖v_j‖/max‖v‖: "
        "what each key moves into O = A V) or info-weighted (through W_O^(h), when the source holds W_O); "
        "weighted rows sum to less than 1",
        show=False,
    ),
    Key("m", "do('knobs.toggle_mask')", "Mask", "toggle the causal mask: off lets every token see the future"),
    Key("up", "do('knobs.select_row', -1)", "Row ↑", "select the previous query row t", show=False, palette=False),
    Key("down", "do('knobs.select_row', 1)", "Row ↓", "select the next query row t", show=False, palette=False),
    Key(
        "k,left_square_bracket",
        "do('knobs.select_row', -1)",
        "Row ↑",
        "select the previous query row t (works while a grid has focus)",
        display="k/[",
        bar="row",
    ),
    Key(
        "j,right_square_bracket",
        "do('knobs.select_row', 1)",
        "Row ↓",
        "select the next query row t (works while a grid has focus)",
        display="j/]",
        bar="row",
    ),
    # A multi-head source (induction-demo, a multi-head file): the pipeline shows one head.
    Key(
        "greater_than_sign",
        "do('knobs.step_head', 1)",
        "Next head",
        "show the next head of the layer (after its last head, the next layer's first); row and pin kept",
        display=">",
        show=False,
    ),
    Key(
        "less_than_sign",
        "do('knobs.step_head', -1)",
        "Prev head",
        "show the previous head (before a layer's first, the previous layer's last)",
        display="<",
        show=False,
    ),
    Key(
        "right_curly_bracket",
        "do('knobs.step_layer', 1)",
        "Next layer",
        "show the same head number in the next layer (round the layers)",
        display="}",
        show=False,
    ),
    Key(
        "left_curly_bracket",
        "do('knobs.step_layer', -1)",
        "Prev layer",
        "show the same head number in the previous layer",
        display="{",
        show=False,
    ),
    Key(
        "i",
        "do('heads.tokens')",
        "New tokens",
        "type your own tokens (induction-demo: e.g. a sequence that repeats) or a sentence (text-demo): every "
        "head of the built-in model recomputed on it",
        show=False,
    ),
    Key(
        "H",
        "do('heads.go_head')",
        "Go to head",
        "show head L.H of a multi-head source: type e.g. 1.3 (from 0)",
        show=False,
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
        f"edit the cell under the cursor ({', '.join(INPUTS)})",
        scope="grid",
        palette=False,
    ),
    # Editing, modes and files: do('module.name') runs attn_tui/tui/actions/module.py's name(app).
    Key(
        "ctrl+z",
        "do('undo.undo')",
        "Undo",
        "undo the last change of the scenario: a cell, a label, a token, a mode, c, a file",
    ),
    Key("ctrl+y", "do('undo.redo')", "Redo", "redo the change undo took back", show=False),
    Key(
        "ctrl+r",
        "do('undo.restore_kept')",
        "Restore session",
        "restore the session kept at the last quit, offered in one line when --scenario opened another",
        show=False,
    ),
    Key(
        "o",
        "do('files.open')",
        "Open",
        "open a scenario: a TOML, .npz or .safetensors file (path prompt) or a built-in; a bad file changes nothing",
        show=False,
    ),
    Key(
        "s",
        "do('files.save')",
        "Save",
        "save the scenario as TOML, up to 512 tokens (atomic, asks before overwriting, reloads bit for bit)",
        show=False,
    ),
    Key(
        "e",
        "do('files.export')",
        "Export",
        "export the matrices as CSV or .npy files (one per matrix, up to 512 tokens), or an SVG screenshot",
        show=False,
    ),
    Key("n", "do('edit.rename_token')", "Rename token", "rename the selected query token", show=False),
    Key(
        "N",
        "do('edit.rename_feature')",
        "Rename feature",
        "rename the feature under the cell cursor (a column of X)",
        show=False,
    ),
    Key(
        "K",
        "do('edit.rename_key')",
        "Rename key",
        "rename the key token under the cursor (a row of Y, K or V)",
        show=False,
    ),
    Key(
        "a",
        "do('edit.add_token')",
        "Add token",
        "insert a token (a zero row of X, or of Q/K/V) after the selected row",
        show=False,
    ),
    Key(
        "D,delete",
        "do('edit.remove_token')",
        "Remove token",
        "remove the selected query token (ctrl+z brings it back)",
        show=False,
        display="D",
    ),
    Key("A", "do('edit.add_key')", "Add key", "cross-attention: add a key token (a zero row of Y)", show=False),
    Key(
        "R",
        "do('edit.remove_key')",
        "Remove key",
        "cross-attention: remove the key token under the cursor (a row of Y)",
        show=False,
    ),
    Key(
        "colon,ctrl+g",
        "do('go.go_to')",
        "Go to row",
        "select query row t and key i of A by number (a long sequence's far rows)",
        show=False,
        display=":/ctrl+g",
    ),
    Key("g", "do('edit.dims')", "Dimensions", "change d_model, d_k, d_v; new cells start at 0", show=False),
    Key(
        "w",
        "do('settings.pick_mask')",
        "Mask kind",
        "pick the mask: causal, none, or a sliding window of width w",
        show=False,
    ),
    Key("b", "do('settings.pick_padding')", "Padding", "pick padded key positions that no query may read", show=False),
    Key("f", "do('settings.pick_fill')", "Fill", "fill of masked cells: -1e9, -inf or the dtype's min", show=False),
    Key("d", "do('settings.pick_dtype')", "dtype", "compute every step in float64, float32 or float16", show=False),
    Key(
        "c",
        "do('settings.toggle_cross')",
        "Cross-attn",
        "cross-attention on/off: keys and values from a second sequence Y",
        show=False,
    ),
    Key(
        "r",
        "do('settings.random')",
        "Random",
        "a random Gaussian scenario: T (up to 512), d_model, d_k, d_v, seed",
        show=False,
    ),
]

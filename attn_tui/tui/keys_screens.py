"""The key table's rows scoped to one screen: pipeline, lenses, experiments, train and tour.

attn_tui/tui/keys.py puts them after the app and grid rows (keys_app.py) in KEYS. The keys that
switch to a screen are not here: keys.py derives them from the screen registry.
"""

from __future__ import annotations

from .key_row import Key

SCREEN_KEYS: list[Key] = [
    # The pipeline (attn_tui/tui/screens/pipeline.py): enter on a pane no grid key answers (charts, inspector).
    Key(
        "enter",
        "app.do('edit.nothing_here')",
        "Edit?",
        "on a pane with nothing to type into: say which matrices enter edits, and how to get there",
        scope="pipeline",
        show=False,
        palette=False,
    ),
    # The lenses, experiments and tour screens (attn_tui/tui/screens/{lenses,experiments,tour}.py).
    Key(
        "z",
        "app.do('lenses.zero_qk')",
        "Box kernel",
        "box-kernel switch: set W_Q = W_K = 0 (Q = K = 0): under the causal mask in self-attention A = W_avg "
        "exactly (up to rounding in float32/float16), in other modes each row uniform over the keys it may read; "
        "press again to restore",
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
        "save the learned W_Q, W_K (and the fixed W_V = I) with the probe sequence as a TOML scenario and open it "
        "on the pipeline",
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
        "s",
        "skip",
        "Skip",
        "skip the page's question: the answer is shown without a prediction (listed as skipped on the last page)",
        scope="tour",
    ),
    Key("t", "contents", "Contents", "the tour's pages by title, exercises marked: enter jumps to one", scope="tour"),
    Key(
        "escape",
        "leave_input",
        "Leave box",
        "leave the prediction box so digits are keys again (enter checks a prediction, s skips)",
        scope="tour",
        show=False,
    ),
    Key(
        "y,enter",
        "try_it",
        "Try it",
        "on an exercise page, once you have predicted: set up the scenario and screen it needs",
        scope="tour",
        display="y",
    ),
    # The heads screen (attn_tui/tui/screens/heads.py).
    Key("right", "move(1)", "Next tile", "pick the next head in the order shown", scope="heads", show=False),
    Key("left", "move(-1)", "Prev tile", "pick the previous head in the order shown", scope="heads", show=False),
    Key("down", "move(2)", "Tile ↓", "pick the head a line of tiles down", scope="heads", show=False),
    Key("up", "move(-2)", "Tile ↑", "pick the head a line of tiles up", scope="heads", show=False),
    Key(
        "enter",
        "open",
        "Open head",
        "show the picked head on the pipeline (every pane, the knob, the pin work on it)",
        scope="heads",
        display="⏎",
    ),
    Key(
        "v",
        "sort(1)",
        "Sort",
        "order the tiles by the next column: head, H, log₂t, prev, first, self, ind, dup (highest first)",
        scope="heads",
    ),
    Key("V", "flip", "Flip order", "highest first or lowest first", scope="heads"),
    Key(
        "M",
        "app.switch_mode('model')",
        "Model view",
        "where the selected query looks in every head of the layer (M again there: every layer)",
        scope="heads",
        palette=False,
    ),
    # The app's head keys, shown in this screen's key bar (the palette has them from the app's rows).
    Key(
        "i",
        "app.do('heads.tokens')",
        "New tokens",
        "type your own tokens (a sentence on text-demo): every head recomputed",
        scope="heads",
        palette=False,
    ),
    Key(
        "right_curly_bracket",
        "app.do('knobs.step_layer', 1)",
        "Layer",
        "the next layer",
        scope="heads",
        display="}",
        palette=False,
    ),
    Key(
        "left_curly_bracket",
        "app.do('knobs.step_layer', -1)",
        "Layer",
        "the previous layer",
        scope="heads",
        display="{",
        palette=False,
        show=False,
    ),
    Key(  # the app's row keys: no row is shown here, so they say where one is (issue 51)
        "j,k,right_square_bracket,left_square_bracket",
        "not_here('row')",
        "Row",
        "the query row is not shown here: T or M shows where one query looks",
        scope="heads",
        display="j/k/]/[",
        show=False,
        palette=False,
    ),
    Key(
        "R,f",
        "not_here('tokens')",
        "Token view keys",
        "R (rollout) and f (who looks at t) are the token view's keys: T",
        scope="heads",
        show=False,
        palette=False,
    ),
    # The token view (attn_tui/tui/screens/tokens.py).
    Key(  # ] and [ too: the app's row keys would move the query unseen while t is shown (after f)
        "j,right,right_square_bracket",
        "move(1)",
        "Next token",
        "the next token: the query (who t looks at) or t (who looks at t)",
        scope="tokens",
        display="j/→",
        bar="token",
    ),
    Key(
        "k,left,left_square_bracket",
        "move(-1)",
        "Prev token",
        "the previous token",
        scope="tokens",
        display="k/←",
        bar="token",
    ),
    Key("f", "flip", "Flip", "who t looks at (row t of A) <-> who looks at t (column t of A)", scope="tokens"),
    Key(
        "R",
        "rollout",
        "Rollout",
        "the whole model's attention rollout R (heads averaged, Ã = ½Ā + ½I, layer 0 first) <-> this head's A",
        scope="tokens",
    ),
    Key(
        "M",
        "app.switch_mode('model')",
        "Model view",
        "where this query looks in every head of its layer (M again there: every layer)",
        scope="tokens",
        palette=False,
    ),
    # The model view (attn_tui/tui/screens/model.py).
    Key(
        "j,right",
        "app.do('knobs.select_row', 1)",
        "Next query",
        "the next query token",
        scope="model",
        display="j/→",
        bar="query",
        palette=False,
    ),
    Key(
        "k,left",
        "app.do('knobs.select_row', -1)",
        "Prev query",
        "the previous query token",
        scope="model",
        display="k/←",
        bar="query",
        palette=False,
    ),
    Key("M", "layers", "One/all layers", "every head of this layer <-> every head of every layer", scope="model"),
    *(  # the prediction's heads, ranked by their share of the top token's logit (views/prediction_view.py)
        Key(
            "n",
            "app.do('heads.next_part', 1)",
            "Next share",
            "the head with the next largest share of the predicted token's logit (▶ in the model view)",
            scope=scope,
        )
        for scope in ("tokens", "model")
    ),
    Key("enter", "app.switch_mode('tokens')", "Token view", "the head marked ▶, in the token view", scope="model"),
]

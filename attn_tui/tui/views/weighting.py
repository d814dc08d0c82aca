"""What the panes say and show of A under the explorer's weighting (key W; State.weighting):
A as is, value-weighted or info-weighted (core/heads/weighting.py). Pure: State -> words, arrays.

The lesson's O = A V: row t of O is Σ_j A[t, j] v_j, so a weight on a key whose value is small moves
little. Weighted, a cell is A[t, j] times that key's size over the largest key's, and a row then
sums to less than 1: the shortfall is weight spent on keys that carry less than the largest.
"""

from __future__ import annotations

import numpy as np

from ..state import State


def _weighting():
    """core.heads.weighting, imported on the first weighted pane: core.heads (the model, the file readers)
    is not the first screen's (tests/tui/test_launch_imports.py)."""
    from ...core.heads import weighting

    return weighting


TITLES = {  # the A grid's title (long, short) under each weighting
    "A": ("A = softmax(S + M) {shape}", "A {shape}"),
    "value": ("value-weighted A·‖v‖ {shape}", "A·‖v‖ {shape}"),
    "info": ("info-weighted A·‖vW_O‖ {shape}", "A·‖vW_O‖ {shape}"),
}
CHART = {"A": "A_t", "value": "A_t·‖v‖", "info": "A_t·‖vW_O‖"}  # the weights chart's name of its bars
NO_W_O = "info-weighted A needs W_O, the layer's output projection: this source holds none"


def weighting_words(state: State) -> str:
    """The note the W key shows: what is on screen now, and why rows sum to less than 1."""
    kind = state.weighting_shown
    if kind == "A":
        tail = "" if state.has_w_o else f" ({NO_W_O}, so W goes A → value-weighted)"
        return f"A as is: where each row looks, each row summing to 1{tail}"
    return (
        f"{'value' if kind == 'value' else 'info'}-weighted A ({_weighting().WHY[kind]}): what each key moves into "
        "O = A V, not only where the row looks"
    )


def weighted_rows(state: State, A_rows, c0: int = 0, c1: int | None = None) -> np.ndarray:
    """Rows of A (..., c1 - c0) as the weighting shows them: keys c0..c1-1, times each key's scale."""
    scale = state.key_scale
    if scale is None:
        return np.asarray(A_rows)
    return _weighting().weigh(A_rows, scale[c0:c1])


def weighted_note(state: State) -> str:
    """' · bars ×‖v_j‖/max‖v‖, sum 0.62 < 1' for the chart's border (H stays A_t's entropy); '' for A."""
    kind = state.weighting_shown
    if kind == "A" or state.row in state.trace.nan_rows:
        return ""
    total = float(np.nansum(weighted_rows(state, state.trace.A[state.row])))
    factor = "‖v_j‖/max‖v‖" if kind == "value" else "‖v_j W_O‖/max"
    return f" · bars ×{factor}, sum {total:.2f}" + (" < 1" if total < 1 - 5e-3 else "")


def pinned_row(state: State, t: int) -> np.ndarray:
    """Row t of the pinned state's A under this state's weighting (the chart's ghost ticks compare like
    with like), each key scaled by the pinned scenario's own values."""
    pin = state.compared
    assert pin is not None  # called only when a pin can be compared (chart.py)
    kind = state.weighting_shown
    return pin.trace.A[t] if kind == "A" else weighted_rows(pin.with_(weighting=kind), pin.trace.A[t])


def chart_name(state: State) -> str:
    return CHART[state.weighting_shown]

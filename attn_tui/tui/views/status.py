"""What the status line shows: the knobs of the current state (row, c, scaling, mask, fill, dtype).

Each part has a long and a short form and a priority; the widget (widgets/status.py)
fits them to its width. Essentials first: the selected row, then c and the scaling.
"""

from __future__ import annotations

from typing import NamedTuple

from ...core.mask_kinds import label
from ...core.scenario import Scenario
from ..fmt import knob
from ..state import State

DEFAULT_FILL = Scenario.__dataclass_fields__["fill"].default
DTYPE_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16"}


class Part(NamedTuple):
    long: str
    short: str  # "" = leave the part out when short
    style: str = ""
    priority: int = 5  # lower is kept longer


def _positioned(label: str, t: int) -> str:
    """The row as the lesson writes it, "t4 it": its position before the label unless the label has it
    (a label that repeats is shown positioned already). Here, not token_view.who: the launch imports this."""
    pos = f"t{t + 1}"
    tok = str(label).strip() or str(label)
    return tok if tok == pos or tok.startswith(pos + " ") else f"{pos} {tok}"


def status_parts(state: State, check: bool = True) -> list[Part]:
    """The parts in the order drawn; ``check``: with the figure of a captured file's check (the
    heads screen shows it in its header instead)."""
    s = state.scenario
    row = _positioned(s.token_labels[state.row], state.row)  # one form, "t4 it", whether or not a label repeats
    parts = [Part(f"row {row}", f"row {row}", "bold", 0)]
    if state.head is not None:  # which head of a multi-head source (heads_nav.HeadRef)
        parts.append(Part(state.head.label(), state.head.short(), "bold", 0))
    if state.pin is not None:
        ok = state.compared is not None
        parts.append(
            Part(
                "pinned: ΔA, ΔH vs pin" if ok else "pinned, another shape: not compared (P unpins)",
                "pinned" if ok else "pin: other shape",
                "bold" if ok else "dim",
                1,
            )
        )
    if state.trace.nan_rows:
        rows = ",".join(str(r + 1) for r in state.trace.nan_rows)
        parts.append(Part(f"NaN rows {rows}", f"NaN {rows}", "bold magenta", 1))
    c = knob(s.c, 3)  # 3 significant digits at small c: "0.001", and c/√d_k "0.0005"
    if s.scaled:
        parts.append(Part(f"c={c} · scaled c/√d_k={knob(s.scale, 3)}", f"c={c} ×1/√d_k", "bold", 1))
    else:  # the scores are c·q·k: c alone, no 1/√d_k (saying c twice told nothing)
        parts.append(Part(f"c={c} · UNSCALED c·q·k, no 1/√d_k", f"c={c} UNSCALED", "bold red", 1))
    mask, short_mask = label(s.mask, s.window), label(s.mask, s.window, short=True)
    if s.padding:
        pad = ",".join(map(str, s.padding))
        mask, short_mask = f"{mask} +pad {pad}", f"{short_mask} +pad {pad}"
    parts.append(Part(f"mask {mask}", short_mask, "", 2))
    if s.cross:  # cross-attention (key c, actions/settings.py toggle_cross): keys and values from Y
        parts.append(Part(f"cross {s.T}×{s.T_k}", f"cross {s.T}×{s.T_k}", "bold", 2))
    # A fill or dtype other than the default is the point of the scenario: kept longer.
    parts.append(Part(f"fill {s.fill}", str(s.fill), "", 3 if s.fill == DEFAULT_FILL else 2))
    parts.append(Part(s.dtype, DTYPE_SHORT.get(s.dtype, s.dtype), "", 3 if s.dtype == "float64" else 1))
    if check and state.head is not None and (figure := _stored_check(state.head.source)) is not None:
        parts.append(Part(figure.brief(), figure.short(), "bold", 0))  # a captured model's: kept at 80 columns
    return parts


def _stored_check(source):
    """A captured file's check figure (core.heads, loaded with the head already: a launch of a
    single-head scenario does not import it, tests/tui/test_launch_imports.py)."""
    from ...core.heads.capture_check import stored_check

    return stored_check(source)


class StatusView(NamedTuple):
    parts: tuple  # of Part, in the order drawn
    title: str  # the scenario's title, drawn last, cut to the room left


FIRST_HINT = Part("new here? press t for the tour, ? for help", "new? t: tour", "bold reverse", 1)


def status_view(state: State, first_screen: bool = False, check: bool = True) -> StatusView:
    """The status line; on the first screen of a session it ends in a hint instead of the title."""
    if first_screen:
        return StatusView((*status_parts(state, check), FIRST_HINT), "")
    return StatusView(tuple(status_parts(state, check)), state.scenario.title)

"""The status line: the knobs of the current state (row, c, scaling, mask, fill, dtype).

Essentials first: the selected row, then c and the scaling, the mask, the fill, the
dtype. Each part has a long and a short form; on a narrow screen parts switch to their
short form (lowest priority first) and then the least important are left out, so
`row t4 it` and `c=1.000` stay visible at 80 columns and below. The scenario's title
comes last, cut to the room left (it is whole in the help screen's header).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ...core.scenario import Scenario
from ..state import State
from .text_lines import TextLines

DEFAULT_FILL = Scenario.__dataclass_fields__["fill"].default
DTYPE_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16"}


@dataclass
class Part:
    long: str
    short: str  # "" = leave the part out when short
    style: str = ""
    priority: int = 5  # lower is kept longer


def status_parts(state: State) -> list[Part]:
    s = state.scenario
    parts = [Part(f"row {s.tokens[state.row]}", f"row {s.tokens[state.row]}", "bold", 0)]
    if state.trace.nan_rows:
        rows = ",".join(str(r + 1) for r in state.trace.nan_rows)
        parts.append(Part(f"NaN rows {rows}", f"NaN {rows}", "bold magenta", 1))
    if s.scaled:
        parts.append(Part(f"c={s.c:.3f} · scaled c/√d_k={s.scale:.3f}", f"c={s.c:.3f} ×1/√d_k", "bold", 1))
    else:
        parts.append(Part(f"c={s.c:.3f} · UNSCALED ×c={s.scale:.3f}", f"c={s.c:.3f} UNSCALED", "bold red", 1))
    mask = s.mask if s.mask != "window" else f"window {s.window}"
    short_mask = s.mask if s.mask != "window" else f"win {s.window}"
    if s.padding:
        pad = ",".join(map(str, s.padding))
        mask, short_mask = f"{mask} +pad {pad}", f"{short_mask} +pad {pad}"
    parts.append(Part(f"mask {mask}", short_mask, "", 2))
    if s.cross:  # edit_actions: cross-attention, keys/values from Y
        parts.append(Part(f"cross {s.T}×{s.T_k}", f"cross {s.T}×{s.T_k}", "bold", 2))
    # A fill or dtype other than the default is the point of the scenario: kept longer.
    parts.append(Part(f"fill {s.fill}", str(s.fill), "", 3 if s.fill == DEFAULT_FILL else 2))
    parts.append(Part(s.dtype, DTYPE_SHORT.get(s.dtype, s.dtype), "", 3 if s.dtype == "float64" else 1))
    return parts


def status_text(state: State, width: int | None = None) -> Text:
    """The status line; ``width`` (cells) shortens and drops parts until it fits."""
    parts = status_parts(state)
    badge = " attn-tui "
    short = [False] * len(parts)
    keep = [True] * len(parts)

    def length() -> int:
        body = [p.short if sh else p.long for p, sh, k in zip(parts, short, keep) if k]
        body = [b for b in body if b]
        return len(badge) * show_badge + 1 + len(" · ".join(body)) + 1

    show_badge = True
    if width is not None:
        order = sorted(range(len(parts)), key=lambda i: -parts[i].priority)
        for i in order:  # short forms, least important first
            if length() <= width:
                break
            short[i] = True
        if length() > width:
            show_badge = False
        for i in order:  # then leave parts out
            if length() <= width or parts[i].priority == 0:
                break
            keep[i] = False
    t = Text(no_wrap=True, overflow="ellipsis")
    if show_badge:
        t.append(badge, "bold reverse")
    t.append(" ")
    first = True
    for p, sh, k in zip(parts, short, keep):
        text = p.short if sh else p.long
        if not k or not text:
            continue
        if not first:
            t.append(" · ")
        t.append(text, p.style)
        first = False
    title = state.scenario.title
    room = None if width is None else width - t.cell_len - 4
    if room is None or room >= 12:  # the title, cut to what is left (whole in the help screen)
        if room is not None and len(title) > room:
            title = title[: room - 1] + "…"
        t.append(" · ")
        t.append(title, "dim")
    t.append(" ")
    return t


class StatusLine(TextLines):
    """One line; call :meth:`show` with the new state (a repaint, never a relayout)."""

    def __init__(self, **kw) -> None:
        super().__init__(wrap=False, **kw)
        self._state: State | None = None

    def show(self, state: State) -> None:
        self._state = state
        self.set_text(status_text(state, self.size.width or None))

    def on_resize(self) -> None:
        super().on_resize()
        if self._state is not None:
            self.set_text(status_text(self._state, self.size.width or None))

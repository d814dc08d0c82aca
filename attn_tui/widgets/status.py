"""The status line: the knobs of the current state (c, scaling, mask, fill, dtype, row)."""

from __future__ import annotations

from rich.text import Text
from .text_lines import TextLines

from ..state import State


def status_text(state: State) -> Text:
    s = state.scenario
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(" attn-tui ", "bold reverse")
    t.append(f" c={s.c:.3f} ", "bold")
    if s.scaled:
        t.append(f"· scaled c/√d_k={s.scale:.3f} ")
    else:
        t.append(f"· UNSCALED ×c={s.scale:.3f} ", "bold red")
    mask = s.mask if s.mask != "window" else f"window {s.window}"
    if s.padding:
        mask += f" +pad {','.join(map(str, s.padding))}"
    t.append(f"· mask {mask} · fill {s.fill} · {s.dtype} ")
    if s.cross:  # edit_actions: cross-attention, keys/values from Y
        t.append(f"· cross {s.T}×{s.T_k} ", "bold")
    t.append(f"· row {s.tokens[state.row]} ", "bold")
    if state.trace.nan_rows:
        t.append(f"· NaN rows {','.join(str(r + 1) for r in state.trace.nan_rows)} ", "bold magenta")
    t.append(f"· {s.title}", "dim")
    return t


class StatusLine(TextLines):
    """One line; call :meth:`show` with the new state (a repaint, never a relayout)."""

    def __init__(self, **kw) -> None:
        super().__init__(wrap=False, **kw)

    def show(self, state: State) -> None:
        self.set_text(status_text(state))

"""Notifications of the editing actions, and the words they say.

Routine notes are short-lived and replace the earlier note of the same kind
("change", "refusal", "explain"), so an old note never contradicts the screen:
a new scenario drops the last change's note, and the lesson's explanation ("what
happened") is replaced, or removed, whenever the lines that apply change.
"""

from __future__ import annotations

from textual.notifications import Notification, Notify

from ..core import modes as Mo
from .history import same_scenario


class Notes:
    """Mixin for AttentionApp: ``note`` replaces the earlier notification of its kind."""

    def note(self, message: str, kind: str, *, title: str = "", severity: str = "information",
             timeout: float = 4) -> None:
        """Notify ``message`` (never markup), first removing the last note of ``kind``."""
        self.drop_note(kind)
        n = Notification(message, title, severity, timeout, markup=False)
        self.__dict__.setdefault("_notes", {})[kind] = n
        self.post_message(Notify(n))

    def drop_note(self, kind: str) -> None:
        """Remove the last note of ``kind`` if it is still on screen."""
        n = self.__dict__.get("_notes", {}).pop(kind, None)
        if n is not None and n in self._notifications:
            del self._notifications[n]
            self._refresh_notifications()

    def watch_state(self, old, new) -> None:
        """A new scenario: the last change's note is stale; the explanation is redone."""
        if old is None or same_scenario(old.scenario, new.scenario):
            return
        # What the explanation line already showed (at launch: the first scenario's lines).
        self.__dict__.setdefault("_explained", old.explanations)
        self.drop_note("change")
        self._explain()

    def _explain(self) -> None:
        """The lesson's explanation (NaN rows, an overflowing fill, ...) for the current scenario."""
        lines = self.state.explanations
        if lines == self.__dict__.get("_explained", ()):
            return
        self.__dict__["_explained"] = lines
        if lines:
            self.note("\n".join(lines), "explain", title="What happened", timeout=8)
        else:
            self.drop_note("explain")


def computed_hint(s, name: str) -> str:
    """What to edit instead of computed matrix ``name`` (Q, K, V, S, M, A, O) of scenario ``s``."""
    src = "Y" if s.cross else "X"
    qk = "X, W_Q, W_K" + (", Y" if s.cross else "") if s.projected else "Q, K"
    hints = {
        "Q": "Q = X·W_Q: edit X or W_Q",
        "K": f"K = {src}·W_K: edit {src} or W_K",
        "V": f"V = {src}·W_V: edit {src} or W_V",
        "S": f"S = c·Q·Kᵀ/√d_k: edit {qk}, or change c (+/-, 0) or the scaling (u)",
        "M": "M is the mask: m toggles causal, w picks the kind, b pads keys, f sets the fill",
        "S_masked": "S + M: edit the scores' inputs or the mask (m, w, b, f)",
        "A": f"A = softmax(S + M) by rows: edit {qk}, c (+/-) or the mask (m, w, b)",
        "O": "O = A·V: edit " + ("W_V or " if s.projected else "V or ") + f"what shapes A ({qk}, c, mask)",
    }
    return f"{name} is computed, not edited. {hints.get(name, 'edit the inputs instead')}"



def cross_keeping_padding(s, on: bool):
    """Mo.set_cross, then the padding positions that still exist among the new keys put back.

    Returns (scenario, note); the note says which padding was kept or dropped, so the
    status line's ``pad`` never changes silently.
    """
    new, note = Mo.set_cross(s, on)
    if new is s or not s.padding:
        return new, note
    keep = tuple(p for p in s.padding if p <= new.T_k)
    if keep and new.padding != keep:
        try:
            new = new.with_(padding=keep)
        except ValueError:
            pass
    lost = [p for p in s.padding if p not in new.padding]
    kept = [p for p in s.padding if p in new.padding]
    if kept:
        note += "; padding kept on key position " + ", ".join(map(str, kept))
    if lost:
        note += "; padding of key position " + ", ".join(map(str, lost)) + " dropped (b pads keys again)"
    return new, note


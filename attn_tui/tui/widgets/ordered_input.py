"""OrderedInput: an Input that applies every key in the order it was typed.

Textual inserts a printable character the moment its key event is handled, but runs an Input's
editing keys (backspace, delete, the arrows, home, end, enter: its BINDINGS) later, once the key has
gone round the binding check, after the key events already queued behind it. Typed in one burst,
as a terminal delivers a quick typist's keys or a paste of keys, `abc` ⌫⌫⌫ `5` ⏎ became 'abc5',
then lost three characters and submitted 'a' (measured in tmux: every event arrives in order, the
deletions run after the 5). Here an editing key runs its action at once, in its place in the queue.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


def _actions(bindings) -> dict[str, str]:
    """key -> action of ``bindings`` (Binding objects or (key, action, ...) tuples; keys comma-separated)."""
    out: dict[str, str] = {}
    for b in bindings:
        b = b if isinstance(b, Binding) else Binding(*b)
        for key in b.key.split(","):
            out.setdefault(key.strip(), b.action)
    return out


class OrderedInput(Input):
    """An Input whose editing keys act in the order typed (module doc)."""

    ACTIONS = _actions(Input.BINDINGS)

    async def _on_key(self, event) -> None:
        action = self.ACTIONS.get(event.key)
        if action is None:
            return  # a character: Input's own handler inserts it at once
        event.stop()
        event.prevent_default()  # neither Input's handler nor the binding check sees it again
        await self.run_action(action)

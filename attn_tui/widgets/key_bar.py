"""KeyBar: the footer as one line of text, from the screen's active bindings.

Textual's Footer is one widget per key (18 here) and recomposes on every focus change;
this draws the same keys (those with show=True, so the rows of keys.py) in one Line-API
widget. Clicking a key runs its action.
"""

from __future__ import annotations

from rich.text import Text
from textual import events

from ..keys import bar_label
from .text_lines import TextLines


class KeyBar(TextLines):
    """`key description` for every shown binding active on this screen, then ^p palette."""

    def __init__(self, **kw) -> None:
        super().__init__(wrap=False, **kw)
        self._spans: list[tuple] = []  # (start, end, action, namespace) for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._rebuild)
        self.call_after_refresh(self._rebuild)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _rebuild(self, *_) -> None:
        text, spans, seen = Text(no_wrap=True, overflow="ellipsis"), [], set()
        entries = []  # [group, [keys], description, action, namespace, enabled]
        for namespace, binding, enabled, _tip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            key, group = self.app.get_key_display(binding), bar_label(binding.action)
            if group is not None and entries and entries[-1][0] == group:
                entries[-1][1].append(key)  # "+/- c ×÷1.1", "k/j row"
                continue
            entries.append([group, [key], group or binding.description, binding.action, namespace, enabled])
        for _group, keys_, desc, action, namespace, enabled in entries:
            start = len(text)
            label = "/".join(k.split("/")[0] for k in keys_) if len(keys_) > 1 else keys_[0]
            text.append(f" {label}", "bold #ffaf00" if enabled else "dim")
            text.append(f" {desc}", "" if enabled else "dim")  # keys are coloured: one space apart
            spans.append((start, len(text), action, namespace))
        text.append(" ^p", "bold #ffaf00")
        text.append(" palette")
        self._spans = spans
        self.set_text(text)

    async def on_click(self, event: events.Click) -> None:
        for start, end, action, namespace in self._spans:
            if start <= event.x < end:
                await self.app.run_action(action, namespace)
                return

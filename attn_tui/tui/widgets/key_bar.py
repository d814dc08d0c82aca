"""KeyBar: the footer as one line of text, from the screen's active bindings.

Textual's Footer is one widget per key (18 here) and recomposes on every focus change;
this draws the same keys (those with show=True, so the rows of keys.py) in one Line-API
widget. Clicking a key runs its action. The keys' colour is the component class
``key-bar--key`` (app.tcss). Its screen hands it the key table's labels (``keys.bar_label``):
a widget imports no key table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events

from .text_lines import TextLines

if TYPE_CHECKING:
    from typing import Any, ClassVar

# Which hints a narrow screen drops first (a higher number goes first; equal: the rightmost).
# `? Help` and `^p palette` are always shown.
PRIORITY = (
    ("help", 0),
    ("page(", 1),
    ("try_it", 1),
    ("do('knobs.scale_by'", 1),
    ("run", 1),
    ("play", 1),
    ("do('knobs.select_row'", 2),
    ("switch_mode", 2),
    ("app.switch_mode", 2),
    ("do('knobs.toggle", 3),
    ("edit", 4),
    ("do('undo.undo'", 5),
    ("do('knobs.reset_scale'", 5),
    ("quit", 6),
)


SHOWN = 99  # the key of the screen already shown: never on its own bar
OWN = 0.7  # a screen's own keys (z Box kernel on the lenses): after Help and the way home


def priority(action: str, current_mode: str | None = None, own: bool = False) -> float:
    """How long the hint for ``action`` stays on a narrow key bar (0: always). ``own``: the
    binding is the shown screen's, not the app's (its main keys stay before the app's knobs)."""
    if current_mode and action.removeprefix("app.") == f"switch_mode('{current_mode}')":
        return SHOWN
    if current_mode and current_mode != "pipeline" and action.removeprefix("app.") == "switch_mode('pipeline')":
        return 0.5  # the way home: after Help, before every other hint
    if current_mode == "pipeline" and action.removeprefix("app.") == "switch_mode('experiments')":
        return 2.5  # before the other screens there: at 80x24 `T Tokens` was dropped and `x Experiments` kept
    rank = next((p for prefix, p in PRIORITY if action.startswith(prefix)), 4)
    return min(rank, OWN) if own and rank else rank


class KeyBar(TextLines):
    """`key description` for every shown binding active on this screen, then ^p palette.
    ``bar_label(action)``: the short label that keys sharing one hint show together (None: the
    binding's description), e.g. "multiplier ×÷1.1" for + and -."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key"}

    def __init__(self, bar_label: Callable[[str], str | None], **kw: Any) -> None:
        super().__init__(wrap=False, **kw)
        self._bar_label = bar_label
        self._spans: list[tuple] = []  # (start, end, action, namespace) for clicks
        self._fitted: int | None = None  # the width the text was fitted to (None: not built yet)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._rebuild)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self) -> None:
        super().on_resize()
        if self._fitted != self.size.width:  # drawn at this width already: the text is the same
            self._rebuild()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:  # the theme or CSS changed: the keys' style with it
            self.call_after_refresh(self._rebuild)

    def _lines(self, width: int) -> list:
        """Fitted to ``width`` when drawn or measured at a width the text was not fitted to: the
        first frame draws the bar whole at its width, before the widget's Resize comes."""
        if self._fitted != width and self.is_attached:
            self._text, self._strips = self._build(width), None
        return super()._lines(width)

    def _rebuild(self, *_) -> None:
        if self._fitted is None:  # not drawn yet: its first draw builds it (_lines)
            return
        self.set_text(self._build(self.size.width))

    def _build(self, width: int) -> Text:
        """The bar's text for ``width`` (its click spans kept with it)."""
        text, spans, seen = Text(no_wrap=True, overflow="ellipsis"), [], set()
        entries: list[list[Any]] = []  # [group, [keys], description, action, namespace, enabled, the screen's own]
        active = self.screen.active_bindings
        own_keys = {key for key, (namespace, *_rest) in active.items() if namespace is self.screen}
        for namespace, binding, enabled, _tip in active.values():
            if not binding.show or binding.action in seen:
                continue
            if priority(binding.action, getattr(self.app, "current_mode", None)) >= SHOWN:
                continue
            key, group = self.app.get_key_display(binding), self._bar_label(binding.action)
            if namespace is not self.screen and key.split("/")[0] in own_keys:
                continue  # "k/j row" where the screen's own j/k move the token: its [ ] keys are not named
            seen.add(binding.action)
            if group is not None and entries and entries[-1][0] == group:
                entries[-1][1].append(key)  # "+/- multiplier ×÷", "k/j row"
                continue
            own = namespace is self.screen
            entries.append([group, [key], group or binding.description, binding.action, namespace, enabled, own])
        entries.sort(key=lambda e: 0 if e[3] == "help" else 1 if e[6] else 2)  # the screen's own keys first
        entries = self._fit(entries, width)
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        for _group, keys_, desc, action, namespace, enabled, _own in entries:
            start = len(text)
            label = _label(keys_)
            text.append(f" {label}", key_style if enabled else "dim")
            text.append(f" {desc}", "" if enabled else "dim")  # keys are coloured: one space apart
            spans.append((start, len(text), action, namespace))
        text.append(" ^p", key_style)
        text.append(" palette")
        self._spans, self._fitted = spans, width
        return text

    def _fit(self, entries: list, width: int) -> list:
        """Leave out the least important hints until the bar and ` ^p palette` fit ``width``."""
        if not width:
            return entries

        def length(es) -> int:
            return sum(len(f" {_label(e[1])} {e[2]}") for e in es) + len(" ^p palette")

        mode = getattr(self.app, "current_mode", None)
        ranks = [priority(e[3], mode, e[6]) for e in entries]
        ranked = sorted(range(len(entries)), key=lambda i: (ranks[i], i), reverse=True)
        keep = set(range(len(entries)))
        for i in ranked:
            if length([entries[j] for j in sorted(keep)]) <= width:
                break
            if ranks[i] > 0:
                keep.discard(i)
        return [entries[j] for j in sorted(keep)]

    async def on_click(self, event: events.Click) -> None:
        for start, end, action, namespace in self._spans:
            if start <= event.x < end:
                await self.app.run_action(action, namespace)
                return


def _label(keys_: list) -> str:
    """ "+/-" for keys that share a hint, else the key."""
    return "/".join(k.split("/")[0] for k in keys_) if len(keys_) > 1 else keys_[0]

"""The command palette's "go to L.H": typing ``1.3`` (or ``head 1.3``, ``L1.H3``) offers head 3 of
layer 1 of the multi-head source shown; ``head`` alone lists every head of the current layer.
The keys' own palette rows come from the key table (keys.py); this provider adds the heads,
which are data (a source's L x H), not keys."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import Hit, Hits, Provider

from .heads_nav import HeadRef, moved, parse_head

if TYPE_CHECKING:
    from .app import AttentionApp


class HeadCommands(Provider):
    if TYPE_CHECKING:  # the explorer's app, for the type checker (app.py is above this module)
        app: AttentionApp

    def _targets(self, query: str) -> list[HeadRef]:
        ref = getattr(self.app.state, "head", None)
        if ref is None:
            return []
        text = query.strip().lower().removeprefix("go to").strip().removeprefix("head").strip()
        if not text:
            return [moved(ref, ref.layer, h) for h in range(ref.source.n_heads)] if "head" in query.lower() else []
        try:
            return [parse_head(text, ref)]
        except ValueError:
            return []

    def _go(self, ref: HeadRef) -> None:
        self.app.action_do("heads.show_head", ref.layer, ref.head)  # the action changes the state

    async def search(self, query: str) -> Hits:
        for ref in self._targets(query):
            text = f"Go to head {ref.layer}.{ref.head}  · {ref.label()}"
            yield Hit(1.0, text, partial(self._go, ref), text=text, help="show that head on every pane (key H)")

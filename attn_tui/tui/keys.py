"""The ONE table of key bindings: key, action, description, help, scope.

Bindings (App/Screen/widget BINDINGS), the footer, the command palette and the help
screen are all built from KEYS. scope: "app" (works on every screen), "grid" (while a
MatrixGrid has focus), or a screen name (while that screen is shown). Keys that switch
screens come from the registry in attn_tui/tui/screens/__init__.py. To add a key, add a row to
keys_app.py (scopes "app" and "grid") or keys_screens.py (a screen's scope); KEYS joins the two
in that order, which is the footer's, the palette's and the help screen's.
No ctrl+digit or F-key is the only way to anything (terminals over SSH may eat them).
"""

from __future__ import annotations

from functools import cache, partial

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider

from .key_row import Key
from .keys_app import APP_KEYS
from .keys_screens import SCREEN_KEYS
from .screens import SCREENS

KEYS: list[Key] = APP_KEYS + SCREEN_KEYS


def _screen_keys() -> list[Key]:
    return [
        Key(e.key, f"switch_mode({e.name!r})", e.title, f"show the {e.title.lower()} screen: {e.help}", show=e.footer)
        for e in SCREENS.values()
    ]


def all_keys() -> list[Key]:
    """Every row: the table above plus one per registered screen."""
    return KEYS + _screen_keys()


def bindings(scope: str) -> list[BindingType]:
    """Textual Bindings for ``scope`` ("app", "grid" or a screen name)."""
    return [
        Binding(
            k.key,
            k.action,
            k.description,
            show=k.show,
            key_display=k.display,
            tooltip=k.help,
            id=f"{k.scope}.{k.action}.{k.key}",
        )
        for k in all_keys()
        if k.scope == scope
    ]


@cache
def _bar_labels() -> dict[str, str]:
    """action -> KeyBar label, the first row's that has one (the table does not change)."""
    labels: dict[str, str] = {}
    for k in all_keys():
        if k.bar:
            labels.setdefault(k.action, k.bar)
    return labels


def bar_label(action: str) -> str | None:
    """The KeyBar label of the row whose action is ``action`` (None: its description)."""
    return _bar_labels().get(action)


def key_label(k: Key) -> str:
    """How the help screen writes the key ("+", "shift+tab", "k/[")."""
    if k.display:
        return k.display
    return k.key.replace(",", "/")


class KeyCommands(Provider):
    """Every app- and screen-level row of KEYS in the command palette."""

    def _rows(self):
        screen = getattr(self.screen, "name_for_keys", None)
        for k in all_keys():
            if not k.palette or k.scope not in ("app", screen):
                continue
            if k.scope == "app" and self.app.check_action(k.action.split("(")[0], ()) is False:
                continue  # off on this screen (the explorer's knobs on the training screen)
            ns = "app" if k.scope == "app" or k.action.startswith("app.") else "screen"
            action = f"{ns}.{k.action.removeprefix('app.')}"
            yield k, f"{k.description}  · key {key_label(k)}", partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for k, text, run in self._rows():
            yield DiscoveryHit(text, run, help=k.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for k, text, run in self._rows():
            score = max(matcher.match(text), matcher.match(k.help) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(text), run, text=text, help=k.help)

"""One row of the key table (attn_tui/tui/keys.py): a key, its action, its words and its scope."""

from __future__ import annotations

from typing import NamedTuple


class Key(NamedTuple):
    key: str  # Textual key name(s), comma separated
    action: str  # action string, run in the scope's namespace
    description: str  # short: footer and palette
    help: str  # one sentence: tooltip, palette help, help screen
    scope: str = "app"
    show: bool = True  # shown in the footer
    display: str | None = None  # how the footer writes the key
    palette: bool = True  # offered in the command palette
    bar: str | None = None  # short label in the pipeline's KeyBar; adjacent rows with one label share an entry

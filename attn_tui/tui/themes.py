"""Theme names for ``--theme``: any theme Textual ships (``textual-dark``, ``textual-light`` ...).

Checked before any UI starts, so a typo is one line and exit 2, not a crash in the app.
"""

from __future__ import annotations

from textual.theme import BUILTIN_THEMES


def theme_names() -> list[str]:
    """Every theme ``--theme`` accepts, sorted."""
    return sorted(BUILTIN_THEMES)


def check_theme(name: str) -> str:
    """``name`` if Textual has that theme, else ValueError naming it and listing the valid names."""
    if name not in BUILTIN_THEMES:
        raise ValueError(f"--theme {name!r}: no such theme (themes: {', '.join(theme_names())})")
    return name

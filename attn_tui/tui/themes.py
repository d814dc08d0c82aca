"""Theme names for ``--theme``: any theme Textual ships (``textual-dark``, ``textual-light`` ...).

Checked before any UI starts, so a typo is one line and exit 2, not a crash in the app.
And the app's style sheet, which parses its sources again only when the theme or a source changed.
"""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet
from textual.theme import BUILTIN_THEMES


def theme_names() -> list[str]:
    """Every theme ``--theme`` accepts, sorted."""
    return sorted(BUILTIN_THEMES)


def check_theme(name: str) -> str:
    """``name`` if Textual has that theme, else ValueError naming it and listing the valid names."""
    if name not in BUILTIN_THEMES:
        raise ValueError(f"--theme {name!r}: no such theme (themes: {', '.join(theme_names())})")
    return name


class ParseOnceStylesheet(Stylesheet):
    """A Stylesheet that parses only when its sources or variables changed.

    Textual calls ``refresh_css`` when it starts a screen from MODES (the explorer's home) even
    though the theme has not changed: ``set_variables`` of the same variables empties the
    per-source parse cache and ``reparse`` parses every source again (app.tcss three times
    before the first frame). Here the same variables keep the cache, and a reparse with the
    sources and variables of the last parse is skipped: its rules would be the same.
    A new theme (new variables) or a new source (a screen's CSS) is parsed as before.
    """

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._vars = dict(variables or {})  # the variables set now
        self._parsed: tuple | None = None  # (variables, sources) of the last parse

    def set_variables(self, variables: dict[str, str]) -> None:
        if variables == self._vars:
            return
        self._vars = dict(variables)
        super().set_variables(variables)

    def parse(self) -> None:
        super().parse()
        self._parsed = (self._vars, dict(self.source))

    def reparse(self) -> None:
        if self._parsed == (self._vars, self.source):
            return
        super().reparse()
        self._parsed = (self._vars, dict(self.source))

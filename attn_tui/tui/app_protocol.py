"""ExplorerApp: what an action (attn_tui/tui/actions) may use of the app, as a type the checker sees.

An action is ``function(app, *args)``, run by AttentionApp.action_do from a key's ``do('module.function')``;
its ``app`` is typed with this Protocol, not with AttentionApp, so that the actions depend on what they
use, not on the app module above them (the layers in pyproject.toml). mypy checks that AttentionApp is an
ExplorerApp (the assignment at the end of app.py). Nothing here runs: the names below are imported for
the type checker only (import-linter leaves TYPE_CHECKING imports out: exclude_type_checking_imports).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.worker import Worker

    from .actions.paths import FilePaths
    from .history import History
    from .notes import Notes
    from .state import State


class ExplorerApp(Protocol):
    """The app as the actions see it: the one State and its door, what the app keeps for them, and the
    part of Textual's App they call (screens, workers, threads)."""

    state: State  # the one State (a reactive on AttentionApp)
    history: History  # undo/redo of scenario changes
    notes: Notes  # every notice, one of each kind
    last_random: dict[str, Any] | None  # the random form's last values
    box_saved: tuple[Any, ...] | None  # what the box kernel zeroed, for z again (actions/lenses.py)

    @property
    def paths(self) -> FilePaths: ...

    @property
    def screen(self) -> Screen[object]: ...

    @property
    def focused(self) -> Widget | None: ...

    def set_state(self, new_state: State) -> str | None: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> object: ...

    def switch_mode(self, mode: str) -> Any: ...

    def run_worker(
        self, work: Callable[[], Any], *, thread: bool = ..., exclusive: bool = ..., group: str = ...
    ) -> Worker[Any]: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any) -> bool: ...

    def save_screenshot(self, filename: str | None = None, path: str | None = None) -> str: ...

"""AttentionApp: the one State, the screens (modes) and the app-wide keys.

Every change goes through :meth:`AttentionApp.set_state`; screens observe ``app.state``
and hand each widget its view (attn_tui/tui/views). Screens come from the registry in
attn_tui/tui/screens/__init__.py, keys from the table in attn_tui/tui/keys.py, and what a key
does to the state from attn_tui/tui/actions (a key's ``do('module.function')``, see action_do).
Only what the first screen draws is imported before it: the other screens, the actions and
their dialogs load on first use (tests/tui/test_launch_imports.py keeps it so).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING, cast

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.reactive import reactive

from ..core.builtins import DEFAULT, builtin
from ..core.limits import refusal
from ..core.matrices import ROW_LINKED
from ..core.scenario import Scenario
from . import framework, keys, worker_threads
from .history import History
from .notes import Notes
from .screens import HOME, SCREENS
from .served_root import default_screenshot_folder, rooted
from .session import SessionKeeper
from .session_signals import install_signals
from .state import State
from .themes import ParseOnceStylesheet
from .widgets.matrix_grid import MatrixGrid

if TYPE_CHECKING:
    from typing import Any

    from .app_protocol import ExplorerApp
    from .heads_nav import HeadRef

ACTIONS = f"{__package__}.actions"  # the package of the actions a key's do('module.function') names


def resume_collection() -> None:
    """The collector back on, the start-up's objects frozen out of its scans (they live as long as the
    app: a full collection would walk them all again on some later key, freeing nothing)."""
    gc.freeze()
    gc.enable()


def head_commands():
    """The palette's "go to L.H" provider, imported when the palette opens (Textual's lazy provider)."""
    from .heads_commands import HeadCommands

    return HeadCommands


def prefetch(ref) -> None:
    """The heads next to ``ref``, computed ahead in a worker thread (heads_nav, loaded with the first head)."""
    from .heads_nav import prefetch as fetch

    fetch(ref)


class AttentionApp(App):
    """The explorer. ``AttentionApp()`` opens the lesson's pipeline; ``scenario=`` another."""

    CSS_PATH = "app.tcss"
    TITLE = "attn-tui"
    BINDINGS = keys.bindings("app")
    COMMANDS = App.COMMANDS | {keys.KeyCommands, head_commands}
    MODES = {name: entry.factory() for name, entry in SCREENS.items()}
    DEFAULT_MODE = HOME

    # always_update: a State is a new object per change and has no useful ==;
    # repaint=False: the panes repaint what changed, the whole screen need not. The default None is never
    # read (init=False; __init__ sets the first State), so the checker is told it is a State.
    state: reactive[State] = reactive(cast(State, None), always_update=True, init=False, repaint=False)

    def __init__(
        self, scenario: Scenario | None = None, session: SessionKeeper | None = None, head: HeadRef | None = None
    ) -> None:
        super().__init__()
        self.session = session  # keeps the session on quit, signals, a crash (tui/session.py); None: nothing kept
        # Parses app.tcss once before the first frame, not three times (themes.py says why).
        self.stylesheet = ParseOnceStylesheet(variables=self.get_css_variables())
        self.history = History()  # undo/redo of scenario changes (set_state records each)
        self.notes = Notes(self)  # notifications, one of each kind, and the lesson's explanation
        self._paths = None  # what the open/save/export dialogs offer next (paths, made on first use)
        self.last_random: dict | None = None  # the random form's last values (its next seed follows)
        self.first_screen = True  # the status line's "new here?" hint, until the first key of the session
        self.box_saved: tuple | None = None  # what the box kernel (z) zeroed, for z again (actions/lenses.py)
        self.tour_kept = None  # a restored session's tour (core/session_tour.TourAt), until the tour screen takes it
        self.after_first: list[Callable[[], None]] = []  # called once the first frame is drawn (cli.explorer.run adds)
        opened = scenario if scenario is not None else builtin(DEFAULT)
        opening = State.opening(opened, head)  # head: of a multi-head source
        # The cell cursor the home screen's first focus reports (its AUTO_FOCUS, A, at the selected row's
        # first cell), set now: the first frame is drawn whole, not drawn and then redrawn for the cursor.
        self.set_reactive(AttentionApp.state, opening.with_(cursor=("A", opening.row, 0)))

    @property
    def paths(self):
        """What the open/save/export dialogs offer next (actions/paths.py, imported with the first dialog)."""
        if self._paths is None:
            from .actions.paths import FilePaths

            self._paths = FilePaths()
        return self._paths

    def on_load(self) -> None:
        """Before any worker starts: their threads never hold up quitting (worker_threads says why)."""
        worker_threads.install(asyncio.get_running_loop())

    def on_mount(self) -> None:
        if not gc.isenabled():  # cli.explorer.run paused the collector for the start-up: resume after the first frame
            self.call_after_refresh(resume_collection)
        for callback in self.after_first:
            self.call_after_refresh(callback)
        if self.state.head is not None:  # the heads next to the one opened, ready for `>` / `<`
            self.run_worker(partial(prefetch, self.state.head), thread=True, exclusive=True, group="heads-prefetch")
        if not self.is_headless:  # a real terminal: SIGHUP, SIGTERM... keep the session and exit cleanly
            install_signals(self)
        if self.session is not None:
            self.session.start(self)

    def on_ready(self) -> None:
        """The start-up batch has ended: write the first screen now, not an update tick later
        (framework.update_screen_now says why)."""
        framework.update_screen_now(self)

    def on_resize(self, event: events.Resize) -> None:
        """A Resize older than the size the driver reports (the web driver's start size, handled
        after the browser's first resize) is followed by one of the reported size, so the first
        layout is for the window the browser has (framework.reported_size says why)."""
        reported = framework.reported_size(self)
        if reported is not None and reported != tuple(event.size):
            self.post_message(events.Resize(Size(*reported), Size(*reported)))

    async def action_quit(self) -> None:
        """q, ctrl+q: keep a session with edits for the next launch (cli says where on exit), then quit."""
        if self.session is not None:
            self.session.keep(self, "quit")
        self.exit()

    def set_state(self, new_state: State) -> str | None:
        """The one door for changes (the history records every scenario change). A new scenario
        passes the admission a file passes (core.limits.refusal); refused, the state stays and the
        one line comes back (None when the change was made)."""
        if new_state.scenario is not self.state.scenario:
            why = refusal(new_state.scenario, None if new_state.large else new_state.trace)
            if why:
                return f"not applied: {why}"
        self.history.record(self.state, new_state)
        self.state = new_state
        return None

    def watch_state(self, old: State | None, new: State) -> None:
        self.notes.state_changed(old, new)
        if new.head is not None and (old is None or old.head is not new.head):  # the next `>` / `<`: ready
            self.run_worker(partial(prefetch, new.head), thread=True, exclusive=True, group="heads-prefetch")

    def get_system_commands(self, screen):
        """Textual's palette commands, less its own Quit: the key table's "Quit · key q" says the key."""
        yield from (c for c in super().get_system_commands(screen) if c.title != "Quit")

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None, time_format=None):
        """The palette's Screenshot: an SVG in ``path``, else ~/Downloads when it exists, else the
        current folder (served: only below the root), saved here and now; the notice names the file,
        or why it could not be written (Textual's own saved to a ~/Downloads that may not exist and
        said only "Failed")."""
        try:
            folder = str(rooted(path) if path else default_screenshot_folder())  # served: below the root
        except (ValueError, RuntimeError) as exc:
            self.notes.say(f"screenshot not saved: {exc}", severity="error")
            return None
        try:
            saved = self.save_screenshot(filename, folder, time_format)
        except OSError as exc:
            self.notes.say(f"could not save the screenshot in {folder}: {exc.strerror or exc}", severity="error")
            return None
        self.notes.say(f"screenshot saved: {saved}", title="Screenshot")
        return saved

    def notify(self, message: str, *, markup: bool = False, title: str = "", **kw: Any) -> None:
        """Notifications carry user text (labels, paths, typed values): never parse it as markup.
        The title leads the message's line (a title line made each notice taller: app.tcss)."""
        super().notify(f"{title}: {message}" if title else message, markup=False, **kw)

    # -- actions (keys.py names them) -----------------------------------------
    def check_action(self, action: str, parameters) -> bool | None:
        """The explorer's knobs and edits are off on a screen that does not show its state
        (the training screen): `+` there would change c unseen, and its key bar named them. A screen
        with ``knobs_here`` (the model view) keeps only the knobs it names (prefixes of do's name)."""
        if action == "do" and not getattr(self.screen, "shows_state", True):
            return False
        here = getattr(self.screen, "knobs_here", None)  # the knobs that change what this screen shows
        if action == "do" and here is not None and parameters and not str(parameters[0]).startswith(here):
            return False
        return True

    def action_do(self, name: str, *args: Any):
        """The one way a key changes the explorer: ``do('module.function', *args)`` in the key table
        (keys_app.py, keys_screens.py) runs ``function(self, *args)`` of attn_tui/tui/actions/module.py,
        the module imported on the first such key (nothing is registered by importing it).

        The rule: what changes the State (the scenario, the row, the pin, the head) or opens a dialog
        that may is an action there, a function of the app, and screens and widgets ask for it (a
        key, ``app.run_action``, ``app.action_do``, a message) rather than change the state themselves.
        A screen's or widget's own ``action_*`` moves only what it keeps itself (its page, scroll,
        sweep frame, cell cursor); Textual's own (quit, help, focus, switch_mode) stay Textual's. An
        async action's coroutine is returned for Textual to await. A key's string passes at most one
        argument after the name (Textual passes as many as this signature counts: two)."""
        module, _, function = name.partition(".")
        return getattr(import_module(f"{ACTIONS}.{module}"), function)(self, *args)

    def open_scenario(self, scenario: Scenario, note: str) -> str | None:
        """Make another scenario (single-head) current: screens do it through here, since they import
        no action (the layers app > actions > screens); None, or the admission's one-line refusal."""
        from .actions import commit  # actions load on first use (action_do)

        return commit(self, scenario, note=note, head=None, fresh=True)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # -- messages up from widgets ---------------------------------------------
    def on_matrix_grid_cell_cursor_moved(self, message: MatrixGrid.CellCursorMoved) -> None:
        cursor = (message.grid.matrix, message.row, message.col)
        row = message.row if message.grid.matrix in ROW_LINKED else self.state.row
        if cursor != self.state.cursor or row != self.state.row:
            self.set_state(self.state.with_(cursor=cursor, row=row))

    def on_matrix_grid_edit_requested(self, message: MatrixGrid.EditRequested) -> None:
        message.stop()
        self.action_do("edit.cell", message.grid.matrix, message.row, message.col)


if TYPE_CHECKING:  # the type checker holds the app to what the actions are typed against (app_protocol.py)
    _the_actions_app: type[ExplorerApp] = AttentionApp

"""The explorer's session outlives its process: kept on quit, on SIGHUP/SIGTERM/SIGQUIT/SIGINT
(tui/session_signals.py) and after a crash, offered back at the next launch (tui/session_offer.py asks;
core/session_store.py writes and reads the files).

``SessionKeeper`` is built by cli/explorer.py (the tests build one too) and handed to AttentionApp; an app
without one (the tests' default, ``attn-tui serve``'s tabs) keeps nothing. A session on a head of a
multi-head source keeps which head (core/session_heads.py); the restore reopens the source through the
explorer's door.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ..core import scenario_io as io
from ..core import session_store as store
from ..core.limits import SESSION_MAX, printable, unexpected
from ..core.scenario import Scenario
from ..core.session_heads import MAX_HEAD_NAME, HeadAt, storable_text, with_heads
from .framework import all_screens
from .heads_nav import HeadRef, moved, open_ref, scenario_of
from .history import same_scenario
from .screens.state_screen import OFFER_KIND
from .session_offer import OfferScreen
from .state import State, clamp_cursor


def _same(a: Scenario, b: Scenario) -> bool:
    """The same scenario, the row it opens on aside (a save writes the row selected then)."""
    return same_scenario(a.with_(focus_row=None), b.with_(focus_row=None))


OFFER_LINE = "a kept session (ctrl+r restores it over this one; --resume at launch)"


class SessionKeeper:
    """Where this session is kept, what was opened, and the kept session offered at launch."""

    def __init__(
        self,
        folder: Path,
        opened: Scenario,
        source: str,
        resume: bool = False,
        fresh: bool = False,
        asked: bool = False,
    ) -> None:
        self.folder = folder
        self.asked = asked  # --scenario named what to open: the kept session is offered in a line, not a dialog
        self.opened = opened  # the scenario the launch opened: a session equal to it has nothing to keep
        self.source = source  # the --scenario given, or the default built-in's name
        self.resume = resume
        self.offer: store.Kept | None = None  # the newest kept session, when it differs from `opened`
        self.offer_path: Path | None = None
        self.problems: list[str] = []  # one line per state file ignored
        self.restored_from: Path | None = None  # replaced by this session's own file when it is written
        self.written: Path | None = None
        self.message: str | None = None  # the line said on exit
        if not fresh:
            kept, path, self.problems = store.newest(folder)
            if kept is not None and (not _same(kept.scenario, opened) or kept.tour is not None):
                self.offer, self.offer_path = kept, path

    # -- keeping ----------------------------------------------------------------------
    def has_edits(self, app) -> bool:
        h, st = app.history, app.state
        if _tour_of(app) is not None:  # the tour's place and answers are kept too (issue 42 item 12)
            return True
        if st.head is not None:  # a multi-head source: moving between its heads is no edit, a new text (`i`) is
            steps = (*h.past, *h.future, st)
            texts = {x.head.source.text for x in steps if x.head is not None}
            return st.pin is not None or len(texts) > 1 or not all(as_computed(x) for x in steps)
        return bool(h.past or h.future or st.pin is not None or not _same(st.scenario, self.opened))

    def snapshot(self, app, why: str) -> store.Kept:
        """What is kept of the app now; undo steps and a pin above 512 tokens are left out (no TOML holds them)."""
        st, h = app.state, app.history
        pin = (st.pin.scenario, st.pin.row) if st.pin is not None and _savable(st.pin.scenario) else None
        past = [x for x in h.past if _savable(x.scenario)]
        future = [x for x in h.future if _savable(x.scenario)]
        past_heads, future_heads = (tuple(_head_at(x.head) for x in xs) for xs in (past, future))
        return store.Kept(
            scenario=st.scenario,
            row=st.row,
            cursor=st.cursor,
            pin=pin,
            past=tuple(x.scenario for x in past),
            future=tuple(x.scenario for x in future),
            why=why,
            source=self.source,
            head=_head_at(st.head),
            past_heads=past_heads if any(past_heads) else (),
            future_heads=future_heads if any(future_heads) else (),
            tour=_tour_of(app),
            weighting=st.weighting,
        )

    def keep(self, app, why: str) -> str | None:
        """Write the session (nothing when it holds no edit); the one line to say on exit."""
        if getattr(app, "state", None) is None:  # a stand-in app (tests/report/test_cli.py)
            return None
        if not self.has_edits(app):
            self.message = _train_note(app).strip() or None
            return self.message
        k = self.snapshot(app, why)
        try:
            io.check_savable(k.scenario)
            self.written = store.write(self.folder, k, replaces=self.written or self.restored_from)
        except OSError as exc:  # where it would have gone, and why not
            self.message = f"attn-tui: the session was NOT kept: {printable(self.folder)}: {exc.strerror or exc}"
            return self.message
        except ValueError as exc:  # a refused folder (its line names it), a scenario no TOML holds
            self.message = f"attn-tui: the session was NOT kept: {printable(str(exc).splitlines()[0])}"
            return self.message
        n = k.edits
        self.message = (
            f"attn-tui{'' if why == 'quit' else ': ' + why}: your session ({n} edit{'' if n == 1 else 's'}, "
            f"c = {k.scenario.c:.4g}) is kept in {self.written}; the next launch offers it back "
            "(--resume restores it, --fresh starts clean)"
        ) + _train_note(app)
        return self.message

    # -- restoring ----------------------------------------------------------------------
    def restore(self, app, k: store.Kept) -> None:
        """Make ``k`` the app's state and undo history (not itself an undo step). A kept head of a
        multi-head source is reopened (each undo step on its own head); a source that cannot be
        is said in the note, and the scenarios are restored as one head each."""
        s = k.scenario
        pin = None
        if k.pin is not None:
            pin = State(k.pin[0], row=min(k.pin[1], k.pin[0].T - 1))
        opened: dict = {}  # (name, tokens) -> the source's head 0.0 HeadRef, or why it could not be reopened
        head, why = _reopen(k.head, opened)
        past = with_heads(k.past, k.past_heads)
        future = with_heads(k.future, k.future_heads)
        steps = [State(x, head=_reopen(at, opened)[0]) for x, at in (*past, (s, None), *future)]
        steps = _lineages(steps)  # a pin restored is kept by undo only across edits of its own scenario
        app.history.past[:] = steps[: len(past)]
        app.history.future[:] = steps[len(past) + 1 :]
        lineage = steps[len(past)].lineage
        app.first_screen = False  # a learner coming back is not new here: no "new here?" hint over their session
        _restore_tour(app, k.tour)
        app.state = State(
            s,
            row=min(k.row, s.T - 1),
            cursor=clamp_cursor(s, k.cursor),
            pin=None if pin is None else replace(pin, lineage=lineage),
            head=head,
            weighting=k.weighting,
            lineage=lineage,
        )
        self.restored_from = self.offer_path
        self.offer = None
        note = f"restored {k.describe()}; ctrl+z undoes its edits"
        if why:
            assert k.head is not None  # why: the kept head could not be reopened (_reopen)
            what = "model" if k.head.tokens else "heads file"  # a built-in model keeps the tokens it ran on
            note += f"; its {what} could not be reopened ({why}): restored as one head"
        app.notes.note(note, "change", severity="warning" if why else "information", timeout=10 if why else 6)

    def start(self, app) -> None:
        """On mount: say what was ignored, then restore (--resume) or offer the kept session."""
        for line in self.problems[:3]:
            app.notes.say(line, title="A kept session was ignored", severity="warning", timeout=8)
        if self.offer is None:
            if self.resume:
                app.notes.say("no kept session to resume: starting clean", severity="warning", timeout=6)
            return
        if self.resume:  # after the first frame's focus has put the cell cursor on the focused grid
            kept = self.offer
            app.call_after_refresh(self.restore, app, kept)
        elif self.asked:  # what the learner asked for stays in front; ctrl+r (actions/undo.py) restores
            kept = self.offer
            app.notes.note(f"{OFFER_LINE}: {kept.describe()}", OFFER_KIND, timeout=15)
        else:
            kept = self.offer
            origin = f"\nfirst opened from {kept.source}" if kept.source else ""
            offer = OfferScreen(f"{kept.scenario.title!r}\n{kept.summary()}{origin}", self.folder)
            app.push_screen(offer, lambda answer: self.answered(app, kept, answer))

    def answered(self, app, kept: store.Kept, answer: str) -> None:
        """The offer's answer: restore it, start clean, or quit; the kept file stays unless restored."""
        if answer == "restore":
            self.restore(app, kept)
        elif answer == "quit":
            app.exit(message=f"attn-tui: the kept session stays in {self.offer_path}; the next launch offers it again")


def as_computed(st: State) -> bool:
    """True when ``st`` shows a head of a multi-head source as the model computes it (not edited)."""
    try:
        return st.head is not None and _same(st.scenario, scenario_of(st.head))
    except ValueError:
        return False


def _head_at(ref: HeadRef | None) -> HeadAt | None:
    """What reopens ``ref``'s head at the next launch: a built-in's name and the tokens its model ran
    on, or the file's absolute path (the next launch may start in another folder). None for one head,
    and for a path no state file may hold (a control character, bytes that are not UTF-8)."""
    if ref is None:
        return None
    from ..core.heads.demo import HEAD_BUILTINS

    if ref.name in HEAD_BUILTINS:  # a text no state file may hold: kept as the one head it shows
        text = ref.source.text
        return HeadAt(ref.name, ref.layer, ref.head, text) if storable_text(text) else None
    name = os.path.abspath(ref.name)
    if printable(name) != name or len(name) > MAX_HEAD_NAME:
        return None
    return HeadAt(name, ref.layer, ref.head)


def _reopen(at: HeadAt | None, opened: dict) -> tuple[HeadRef | None, str | None]:
    """(the HeadRef of ``at`` in its reopened source, None), or (None, why it could not be); each
    source is opened once, through the door of `--scenario NAME` (heads_nav.open_ref: head 0.0
    admitted as the explorer opens it)."""
    if at is None:
        return None, None
    key = (at.name, at.tokens)
    if key not in opened:
        try:
            opened[key] = open_ref(at.name, at.tokens or None)[1]
        except Exception as exc:  # noqa: BLE001  (a refusal, a file gone, anything unforeseen: one head)
            said = isinstance(exc, ValueError) and str(exc)  # the door's one line; else the backstop's
            line = printable(str(exc).splitlines()[0]) if said else f"cannot be opened ({unexpected(exc)})"
            opened[key] = line if line.startswith(printable(at.name)) else f"{printable(at.name)}: {line}"
    base = opened[key]
    if isinstance(base, str):
        return None, base
    try:
        return moved(base, at.layer, at.head), None
    except ValueError as exc:  # the file changed: that layer or head is no longer there
        return None, f"{printable(at.name)}: {str(exc).splitlines()[0]}"


def _tour_screen(app):
    from .screens.tour import TourScreen

    return next((x for x in all_screens(app) if isinstance(x, TourScreen)), None)


def _tour_of(app):
    """The tour's place and answers to keep (core/session_tour.TourAt), or None: from the tour screen
    when it was opened, else what a restore handed it that it has not taken yet."""
    screen = _tour_screen(app)
    return screen.kept() if screen is not None else getattr(app, "tour_kept", None)


def _restore_tour(app, tour) -> None:
    """Hand a kept session's tour to the tour screen (now, or when it is first opened)."""
    screen = _tour_screen(app)
    if screen is None:
        app.tour_kept = tour
    elif tour is not None:
        screen.take(tour)
        screen.run_worker(screen.show_page(), exclusive=True)


def _savable(s: Scenario) -> bool:
    return max(s.T, s.T_k) <= SESSION_MAX


def _train_note(app) -> str:
    """On exit: the training screen's run is not kept; say so when one was started."""
    from .screens.train import TrainScreen

    for screen in all_screens(app):
        if isinstance(screen, TrainScreen) and screen.trainer.step_count:
            tr = screen.trainer
            return f"\nattn-tui: the training run (step {tr.step_count} of {tr.config.steps}) is not kept"
    return ""


def _lineages(steps: list) -> list:
    """The undo steps (oldest first, the current scenario among them) with the lineages a kept session
    does not write: a new one wherever a step cannot be an edit of the step before (_kin: another title,
    another model or tokens: an opened file, a built-in, a random scenario), else the one before, so
    undo after --resume drops a pin across another scenario as it does before a quit (history._view)."""
    out: list[State] = []
    for st in steps:
        kin = out and _kin(out[-1], st)
        out.append(replace(st, lineage=out[-1].lineage) if kin else st.fresh())
    return out


def _kin(a: State, b: State) -> bool:
    """b may be an edit of a: the same title, or heads of the same source on the same tokens (a move
    between heads keeps the pin, to compare them)."""
    if a.head is not None and b.head is not None:
        return (a.head.name, a.head.source.tokens) == (b.head.name, b.head.source.tokens)
    return a.head is None and b.head is None and a.scenario.title == b.scenario.title

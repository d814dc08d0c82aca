"""The one adapter for framework internals: private names of Textual and plotext live here only.

Textual has no public call to withdraw one notification (only ``clear_notifications``), no
public list of the notifications shown, no hook for the first frame and no call to write a
pending frame now (the start-up's is held for an update tick); none to style a component
class once for many widgets, to lay a container out again at the same size, or to list the widgets
a screen shows with their regions; plotext's figure needs its private ``_set_size`` for a build at
an exact size, and has no public figure class. tests/tui/test_framework.py checks each of these
still works, so a framework release that renames one fails there, not all over the app; it also
checks that no other module of the package reads a private Textual or Rich name.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ScreenStackError
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.geometry import Region
from textual.notifications import Notification, SeverityLevel
from textual.widget import Widget
from textual.widgets._toast import ToastHolder, ToastRack


def post_notification(app: App, message: str, title: str, severity: SeverityLevel, timeout: float) -> Notification:
    """Show a notification (never markup) at once, and return it so it can be withdrawn later
    (App.notify posts a message: a note withdrawn before that message is handled would stay).
    The title leads the message's line: a toast's title line made every notice a line taller."""
    n = Notification(f"{title}: {message}" if title else message, "", severity, timeout, markup=False)
    app._notifications.add(n)
    app._refresh_notifications()
    return n


def withdraw_notification(app: App, n: Notification) -> None:
    """Remove notification ``n`` if it is still shown."""
    if n in app._notifications:
        del app._notifications[n]
        _sweep_toast_holders(app)
        app._refresh_notifications()


def _sweep_toast_holders(app: App) -> None:
    """Remove the current screen's toast holders of notifications no longer shown. Textual's
    ToastRack.show removes a withdrawn notification's Toast but not the ToastHolder around it;
    the empty holders piled up (one per "computing …" note at a large T) and pushed every new
    toast below the screen: after ~40 presses of + the warnings stopped appearing."""
    try:
        rack = app.screen.get_child_by_type(ToastRack)
    except (NoMatches, ScreenStackError):
        return
    live = {ToastRack._toast_id(n) for n in app._notifications}
    for holder in list(rack.query_children(ToastHolder)):
        if holder.id not in live:
            holder.remove()


def shown_notifications(app: App) -> list[Notification]:
    """The notifications on screen now, oldest first."""
    return list(app._notifications)


def set_plot_size(plt, width: int, height: int) -> None:
    """Make plotext build ``plt`` at exactly ``width``×``height`` cells."""
    plt.plotsize(width, height)
    plt._set_size(width, height)


def new_figure():
    """A fresh plotext figure, as textual-plotext's widgets hold one (for the benchmark's floor)."""
    from plotext._figure import _figure_class

    return _figure_class()


def on_first_frame(app: App, callback: Callable[[], None]) -> None:
    """Call ``callback`` once, when ``app`` composites its first frame (the benchmark's clock)."""
    display = app._display
    done: list[bool] = []

    def timed_display(screen, renderable):
        if renderable is not None and not done:
            done.append(True)
            callback()
        return display(screen, renderable)

    app._display = timed_display  # type: ignore[method-assign]  # the app's own method, wrapped on purpose


def update_screen_now(app: App) -> None:
    """Do now what the screen's next update tick would do (lay out and write what is pending).

    Textual composes a home screen given by MODES inside its start-up batch (it awaits the mode's
    mount there), so the first frame it renders is dropped and written only at the screen's first
    update tick, 1/60 s after the batch ends; a default screen lays out after the batch and is
    written at once. Called when the app is Ready (after the batch), the explorer's first screen is
    written as soon as it exists, as a bare app's is; the tick then finds nothing left to do."""
    if not app._batch_count:
        app.screen._on_timer_update()


def all_screens(app: App) -> list:
    """Every screen the app holds, in every mode's stack (Textual has no public list of the other
    modes' screens; the session's exit note asks whether the training screen ran)."""
    return [screen for stack in app._screen_stacks.values() for screen in stack]


def reported_size(app: App) -> tuple[int, int] | None:
    """The size the browser last reported under `attn-tui serve`; None in a terminal.
    Textual's web driver posts its start size (COLUMNS×ROWS, 80×24 from textual-serve) from the loop
    while its input thread posts the browser's first resize directly, so the stale start size can
    arrive last and stay: the app's size until the browser is resized. A terminal's driver keeps
    the size it started with (its resizes come from SIGWINCH, not through it): read as the current
    size, every resize of the terminal was answered with one back to the launch size."""
    driver = app._driver
    if driver is None or not driver.is_web or driver._size is None:
        return None
    width, height = driver._size
    return width, height


def component_class_styles(node: DOMNode, name: str):
    """The styles ``node``'s app's style sheet gives component class ``name`` under ``node``: what
    Textual computes for each component class of each widget, done once (widgets/palette.py shares
    the result between every grid of the app)."""
    virtual = DOMNode(classes=name)
    virtual._attach(node)
    node.app.stylesheet.apply(virtual)
    return virtual.styles


def attach(node: DOMNode, parent: DOMNode) -> None:
    """Hang ``node`` under ``parent`` without mounting it: a virtual node whose styles the style sheet
    resolves as if it were there (widgets/palette.py: a stand-in grid under the widget that asks)."""
    node._attach(parent)


def use_component_styles(widget, styles: dict) -> None:
    """Make ``widget`` read its component classes' styles from ``styles`` ({class: styles}, shared
    by many widgets), dropping the Rich styles it derived from any others."""
    if widget._component_styles is not styles:
        widget._component_styles = styles
        widget._rich_style_cache.clear()


def clear_arrangement_cache(widget) -> None:
    """Forget ``widget``'s cached arrangement of its children: a container whose layout changed at
    the same size is laid out again on its next ``refresh(layout=True)`` (a refresh clears only the
    caches of its ancestors)."""
    widget._clear_arrangement_cache()


def visible_widgets(screen) -> dict[Widget, tuple[Region, Region]]:
    """{widget: (its region, its clip)} for each widget ``screen`` shows now, in compositor order."""
    return dict(screen._compositor.visible_widgets)

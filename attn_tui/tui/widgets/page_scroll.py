"""Keep one screen line of a pane in view in the scrolling page around it."""

from __future__ import annotations

from textual.containers import ScrollableContainer
from textual.widget import Widget


def reveal_line(widget: Widget, y: int) -> None:
    """Scroll the nearest vertically scrolling container around ``widget`` (if any) so that
    screen line ``y`` is in view, by as little as needed."""
    page = next((a for a in widget.ancestors if isinstance(a, ScrollableContainer) and a.allow_vertical_scroll), None)
    if page is None:
        return
    view = page.scrollable_content_region
    if y < view.y:
        page.scroll_relative(y=y - view.y, animate=False, immediate=True)
    elif y >= view.bottom:
        page.scroll_relative(y=y - view.bottom + 1, animate=False, immediate=True)

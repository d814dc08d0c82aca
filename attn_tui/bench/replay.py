"""A first-frame floor with the explorer's own picture (benchmark only): the replay.

:func:`capture` runs an app headless until it settles and keeps, for every widget the screen
shows (not the screen itself), the part of the screen it covers (its region within its clip)
and the lines it painted there. :func:`replay_app` builds an app that shows the same picture
with as many painted widgets, and nothing computed: one :class:`Replay` widget per part, placed
absolutely where the part was, its lines returned as captured. No style sheet, no layout of
rows and columns, no scenario, no pipeline, no plotext: its first frame is what Textual needs to
show this screen with this many widgets. The explorer's first frame above it is its own code
plus Textual's style and layout work for the explorer's widget tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from ..tui.framework import visible_widgets


@dataclass(frozen=True)
class Painted:
    """What one widget painted: the screen region it covered and its lines there, top to bottom."""

    region: Region
    lines: tuple[Strip, ...]


async def capture(make, size: tuple[int, int]) -> list[Painted]:
    """The parts of ``make()``'s screen, headless at ``size``, once it has settled: one per
    visible widget (the screen left out), parents before their children (fewer ancestors
    first), so that a child replayed after its parent paints over it, as on the screen."""
    app = make()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        found = []
        for widget, (region, clip) in visible_widgets(app.screen).items():
            if widget is app.screen:
                continue
            shown = region.intersection(clip)
            crop = Region(shown.x - region.x, shown.y - region.y, shown.width, shown.height)
            found.append((len(widget.ancestors), Painted(shown, tuple(widget.render_lines(crop)))))
    found.sort(key=lambda depth_part: depth_part[0])  # stable: siblings keep the compositor's order
    return [part for _, part in found]


class Replay(Widget):
    """One captured part: placed at its region, its lines painted as they were."""

    DEFAULT_CSS = "Replay { position: absolute; }"

    def __init__(self, part: Painted) -> None:
        super().__init__()
        self.lines = part.lines
        self.styles.offset = (part.region.x, part.region.y)
        self.styles.width, self.styles.height = part.region.width, part.region.height

    def render_line(self, y: int) -> Strip:
        return self.lines[y] if y < len(self.lines) else Strip.blank(self.size.width)


def replay_app(parts: list[Painted]) -> type[App]:
    """An app class that composes one :class:`Replay` per part, in the order given."""

    class ReplayApp(App):
        def compose(self):
            yield from (Replay(part) for part in parts)

    return ReplayApp

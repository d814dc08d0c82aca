"""The explorer as users run it: NO_COLOR, 16 colours (TERM=xterm, no COLORTERM), 256 colours.

The variables are set before the app is built: Textual reads NO_COLOR in App.__init__ (and
adds its monochrome filter), and the app's console picks its colour system from TERM and
COLORTERM there too. Each test first checks that the console really took the colour system
the terminal asks for; then it takes what each widget draws (``render_lines``: after the
styles cache and the NO_COLOR filter) and rounds every colour as the terminal output does
(Rich's ``Color.downgrade`` to that system), and checks that no character is drawn in its
background's colour, or on no background (the terminal's own, which may be white).
Textual's own frames and toggles (box and block glyphs of Input, OptionList, SelectionList)
are drawn near their ground by design and are left out; words, numbers, and everything our
widgets draw (grids, chart bars, key bar) are checked.
"""

from __future__ import annotations

import numpy as np
import pytest
from rich.color import ColorSystem
from textual import constants
from textual.geometry import Region

from attn_tui.core.scenario import Scenario
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.bar_plot import BarPlot
from attn_tui.tui.widgets.matrix_grid import MatrixGrid
from attn_tui.tui.widgets.text_lines import TextLines

# the long lane: every screen at every size in 16/256/mono colour, 10-45 s each
pytestmark = [pytest.mark.slow, pytest.mark.long]

TERMINALS = {  # name: (environment, the colour system the console must take)
    "mono-16": ({"NO_COLOR": "1", "TERM": "xterm"}, ColorSystem.STANDARD),
    "16": ({"TERM": "xterm"}, ColorSystem.STANDARD),
    "256": ({"TERM": "xterm-256color"}, ColorSystem.EIGHT_BIT),
    "mono-256": ({"NO_COLOR": "1", "TERM": "xterm-256color"}, ColorSystem.EIGHT_BIT),
    "truecolor": ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, ColorSystem.TRUECOLOR),
}
NAMES = {ColorSystem.STANDARD: "standard", ColorSystem.EIGHT_BIT: "256", ColorSystem.TRUECOLOR: "truecolor"}
OURS = (MatrixGrid, BarPlot, TextLines)  # every glyph they draw is checked, frames included
SCREENS = ("", "l", "x", "t", "question_mark", "o", "w")  # pipeline, lenses, experiments, tour, help, dialogs


@pytest.fixture
def terminal(monkeypatch, request):
    """Set the terminal's variables (before the app is built); returns its colour system."""
    env, system = TERMINALS[request.param]
    for var in ("NO_COLOR", "TERM", "COLORTERM", "TEXTUAL_COLOR_SYSTEM"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "auto")  # read by App.__init__
    return system


def _key(colour, system):
    """The SGR codes the terminal gets for ``colour`` (None: the terminal's default)."""
    return None if colour is None else tuple(colour.downgrade(system).get_ansi_codes())


def look(style, system) -> tuple:
    """(text colour, ground colour, attributes) as the terminal shows ``style``."""
    fg, bg = (style.bgcolor, style.color) if style.reverse else (style.color, style.bgcolor)
    return (
        _key(fg, system),
        _key(bg, system),
        bool(style.bold),
        bool(style.italic),
        bool(style.underline),
        bool(style.strike),
    )


def drawn(widget) -> list[list[tuple]]:
    """What ``widget`` draws, one (character, Style) per cell, rows of its region."""
    strips = widget.render_lines(Region(0, 0, *widget.region.size))
    return [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in strips]


def _decoration(ch: str) -> bool:
    return "\u2500" <= ch <= "\u259f"  # box drawing and block elements


def invisible(app, system) -> list[str]:
    """Every character on screen whose text colour is its ground colour, as 'Widget 'x' at (x, y)'."""
    bad = []
    for widget in app.screen.query("*"):
        if not widget.display or not widget.region.area:
            continue
        for y, row in enumerate(drawn(widget)):
            for x, (ch, style) in enumerate(row):
                if not ch.strip() or style is None or (_decoration(ch) and not isinstance(widget, OURS)):
                    continue
                fg, bg, *_ = look(style, system)
                if fg is not None and bg in (fg, None):  # None: on the terminal's own ground, any colour
                    bad.append(f"{type(widget).__name__}#{widget.id} {ch!r} at ({x}, {y}) {style}")
    return bad


def cell_look(app, grid: MatrixGrid, row: int, col: int, system) -> tuple:
    """How cell (row, col) of ``grid`` looks on this terminal (its first character's look)."""
    r = grid.cell_region(row, col)
    cells = drawn(grid)[r.y - grid.region.y][r.x - grid.region.x : r.right - grid.region.x]
    text = "".join(ch for ch, _ in cells).strip()
    style = next(st for ch, st in cells if ch.strip())
    return text, look(style, system)


async def _show(pilot, settle, keys: str) -> None:
    await settle(pilot)
    if keys:
        await pilot.press(keys)
    await settle(pilot)


# Every screen in one run: pipeline, lenses, experiments, tour, help, the open and mask dialogs.
TOUR = (
    ("", "PipelineScreen"),
    ("l", "LensesScreen"),
    ("p", "PipelineScreen"),
    ("x", "ExperimentsScreen"),
    ("p", "PipelineScreen"),
    ("t", "TourScreen"),
    ("p", "PipelineScreen"),
    ("question_mark", "HelpScreen"),
    ("escape", "PipelineScreen"),
    ("o", "OpenScreen"),
    ("escape", "PipelineScreen"),
    ("w", "ChoiceScreen"),
)


@pytest.mark.parametrize("terminal", list(TERMINALS), indirect=True)
async def test_every_character_differs_from_its_ground(terminal, settle):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.console.color_system == NAMES[terminal]  # what the terminal asked for, not forced
        for keys, screen in TOUR:
            await _show(pilot, settle, keys)
            assert app.return_code is None and type(app.screen).__name__ == screen
            assert invisible(app, terminal) == [], screen


@pytest.mark.parametrize("terminal", ["mono-16", "16"], indirect=True)
async def test_every_size_draws_without_crash(terminal, settle):
    app = AttentionApp()
    async with app.run_test(size=(20, 6)) as pilot:
        for size in ((20, 6), (40, 12), (80, 24), (200, 60)):
            await pilot.resize_terminal(*size)
            for keys in ("", "j", "tab", "right", "l", "p", "question_mark", "escape"):
                await _show(pilot, settle, keys)
                assert app.return_code is None
                assert invisible(app, terminal) == [], (size, keys)


@pytest.mark.parametrize("terminal", list(TERMINALS), indirect=True)
async def test_masked_cells_readable_and_unlike_open_ones(terminal, settle):
    """The lesson's causal mask: S's and A's upper triangles are masked. Each masked cell
    shows its number in a visible colour and looks unlike every open cell of its grid;
    the selected row is underlined and the cursor looks unlike the cells around it."""
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await _show(pilot, settle, "k")  # a row other than the first selected
        row, blocked = app.state.row, app.state.trace.blocked
        for name in ("S", "A"):
            grid = app.screen.query_one(f"#grid-{name}", MatrixGrid)
            cursor = grid.cursor if grid.has_focus else None
            looks = {
                (r, c): cell_look(app, grid, r, c, terminal)
                for r in range(blocked.shape[0])
                for c in range(blocked.shape[1])
                if (r, c) != cursor
            }
            masked = {looks[rc][1] for rc in looks if blocked[rc]}
            opened = {looks[rc][1] for rc in looks if not blocked[rc]}
            assert masked and opened and not masked & opened, name
            for rc, (text, (fg, bg, *_)) in looks.items():
                assert text and fg != bg, (name, rc, text)
            underlined = {r for (r, c), (_, lk) in looks.items() if lk[4]}
            assert underlined == {row}, name
        grid = app.screen.query_one("#grid-X", MatrixGrid)
        grid.focus()
        await _show(pilot, settle, "right")  # the cursor on X[row, 1], in the selected row
        (r, c), (rows, cols) = grid.cursor, app.state.scenario.X.shape
        cursor = cell_look(app, grid, r, c, terminal)[1]
        around = [(r, c + d) for d in (-1, 1) if 0 <= c + d < cols] + [(r + d, c) for d in (-1, 1) if 0 <= r + d < rows]
        assert len(around) >= 3 and all(cursor != cell_look(app, grid, *rc, terminal)[1] for rc in around)


@pytest.mark.parametrize("terminal", ["16"], indirect=True)
@pytest.mark.parametrize("q00", [4.9e-324, -1e-310, 1e-20, 1e150])
async def test_subnormal_tiny_and_huge_values_render(terminal, q00, settle):
    """Q = [[q00, 0], [0, 1]], K = I: row a's scores are subnormal, tiny or huge. Every
    pane and chart draws (plotext raised OverflowError on a subnormal range)."""
    s = Scenario(title="tiny", tokens=("a", "b"), Q=np.array([[q00, 0.0], [0.0, 1.0]]), K=np.eye(2), V=np.eye(2))
    app = AttentionApp(scenario=s)
    async with app.run_test(size=(120, 40)) as pilot:
        for keys in ("", "j", "k"):
            await _show(pilot, settle, keys)
            assert app.return_code is None, keys
            assert invisible(app, terminal) == [], keys
        assert app.state.row == 0 and app.screen.query_one("#grid-S", MatrixGrid).cell_text(0, 0) != "0"
        title = app.screen.query_one("#chart-scores", BarPlot).render_line(0).text
        assert "×1e" in title  # the bars of row a divided by its power of ten
        for keys in ("l", "p", "t", "p", "question_mark", "escape"):
            await _show(pilot, settle, keys)
            assert app.return_code is None, keys

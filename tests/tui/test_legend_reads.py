"""A grid's colour legend reads as a legend, not as two stray numbers (`0     1`, `-1    1`), also
where its colours are gone (NO_COLOR) or few (16): each cell of the bar carries a bar glyph as tall
as its |value| (issue 31)."""

from __future__ import annotations

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.widgets.palette import BARS


async def test_the_legends_are_bars_between_their_ends(settle, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        heads = {n: app.screen.query_one(f"#grid-{n}").render_line(0).text for n in ("A", "S", "X")}
    a = heads["A"].split()[0]  # "0▁▃▄▆█1"
    assert a[0] == "0" and a[-1] == "1" and set(a[1:-1]) <= set(BARS) and a[1] == BARS[0] and a[-2] == BARS[-1], a
    s = heads["S"].split()[0]  # "-3█▄▁▄█3": tall at both ends, low at 0
    bar = s.strip("-0123456789.")
    assert s.startswith("-") and bar and set(bar) <= set(BARS) and bar[0] == bar[-1] == BARS[-1], s
    assert min(bar) < bar[0], s  # lower towards 0

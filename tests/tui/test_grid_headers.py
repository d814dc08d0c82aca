"""Column headers never name another token: a header that would lose a digit to fit the cell
widens the cells ("t11995" in 5 cells read "t1195", a real token at T = 16384)."""

from __future__ import annotations

from attn_tui.tui.widgets import palette as P


def test_labels_that_fit_keep_the_width():
    assert P.header_width(tuple(f"t{i}" for i in range(1, 10000)), 5) == 5  # t9999 fits 5
    assert P.header_width(("noun", "verb", "spare1", "spare2"), 5) == 5  # "spar1": a letter dropped, not a digit
    assert P.headers(("noun", "spare1"), 5) == ["noun", "spar1"]


def test_a_digit_that_would_be_dropped_widens_the_cells():
    labels = tuple(f"t{i}" for i in range(1, 16385))
    w = P.header_width(labels, 5)
    assert w == 6
    shown = P.headers(labels, w)
    assert shown[11994] == "t11995" and len(set(shown)) == len(labels)  # every header is its own token
    assert P.header_width(tuple(f"t{i}" for i in range(1, 16385)), 6) == 6  # a new tuple, computed again
    assert P.header_width(("x1234567890",), 5) == 8  # capped: then abbreviated, with its last digit


async def test_a_grid_of_16384_keys_shows_whole_headers(settle):
    import numpy as np

    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.app import AttentionApp

    rng = np.random.default_rng(3)
    T = 16384
    app = AttentionApp(scenario=Scenario(Q=rng.standard_normal((T, 4)), K=rng.standard_normal((T, 4)), mask="none"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.grids["A"]
        grid.focus()
        grid.move_cursor(11999, 11994)
        await settle(pilot)
        header = grid.render_line(0).text
        assert "t11995" in header and "t1195 " not in header, header

"""What a learner meets on text-demo (session 18, learner items 2, 3 and 5): a text that overflows the
token view wraps at the width its scrollbar leaves; the token view says its
prediction is the model's own, which c and edits do not touch; the model view at 80x24 shows where
the query looks in every head on its first screen, as its title promises, the prediction after."""

from __future__ import annotations

import re

import numpy as np
import pytest
from rich.cells import cell_len
from textual.app import App

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import MIN_PREDICT, MIN_TEXT, TokensScreen
from attn_tui.tui.widgets.token_text import TokenText
from tests.core.textmodels import text_demo_model


async def _keys(pilot, settle, *keys: str) -> None:
    for k in keys:
        await pilot.press(k)
        await settle(pilot)


def _app() -> AttentionApp:
    s, ref = open_ref("text-demo")
    return AttentionApp(scenario=s, head=ref)


async def test_c_changes_the_shading_not_the_prediction_and_the_view_says_so(settle, monkeypatch, tmp_path):
    text_demo_model(monkeypatch, tmp_path)
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T")
        assert isinstance(app.screen, TokensScreen)
        before = app.screen.query_one("#tokens-predict").plain
        codes, c = app.screen.query_one(TokenText).codes.copy(), app.state.scenario.c
        await _keys(pilot, settle, "+", "+", "+")
        assert app.state.scenario.c != c
        assert not np.array_equal(app.screen.query_one(TokenText).codes, codes)  # the shading follows c
        after = app.screen.query_one("#tokens-predict").plain
        assert after == before  # the prediction does not: the model's own weights
        assert "the model's own weights: c, the mask and edits do not apply to it" in after.splitlines()[0]


async def test_the_model_view_at_80x24_shows_every_head_first(settle, monkeypatch, tmp_path):
    text_demo_model(monkeypatch, tmp_path)
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T", "M")
        assert isinstance(app.screen, ModelScreen)
        heads, scroll = app.screen.query_one("#model-heads"), app.screen.query_one("#model-scroll")
        n = app.state.head.source.n_heads
        lines = heads.plain.splitlines()
        assert [line[2:].split()[0] for line in lines if line[2:3] == "L"] == [f"L0.H{h}" for h in range(n)]
        # review: at 80 columns a head's keys were cut mid-key ("t1 Th"); they go on under its name instead
        assert all(cell_len(line) <= heads.content_region.width for line in lines), lines
        assert len(re.findall(r"\bt\d+ .+? \d\.\d\d\b", heads.plain)) == 5 * n  # every key, with its weight
        view = scroll.region
        assert view.y <= heads.region.y and heads.region.y + len(lines) <= view.bottom, (heads.region, view)
        predict = app.screen.query_one("#model-predict")
        assert predict.region.y >= heads.region.bottom  # the prediction after


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_token_view_gives_the_rows_the_text_leaves_to_the_prediction(settle, monkeypatch, tmp_path, size):
    """Review: at 80x24 the shares line was cut ("L0.H2…") under rows the short text left blank; the
    prediction and the legend now take them, whole, and a long text still keeps its rows."""
    text_demo_model(monkeypatch, tmp_path)
    app = _app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T", "j")
        for name in ("#tokens-predict", "#tokens-legend"):
            pane = app.screen.query_one(name)
            wants = pane.get_content_height(pane.size, pane.size, pane.content_region.width)
            assert pane.size.height == wants, (name, pane.size.height, wants)  # every line shown
        text = app.screen.query_one(TokenText)
        assert text.size.height >= text.virtual_size.height  # and the text whole
    s, ref = open_ref("text-demo", LONG)  # a long text: it keeps its rows, the others their least
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T")
        text, predict = app.screen.query_one(TokenText), app.screen.query_one("#tokens-predict")
        assert text.virtual_size.height > text.size.height >= MIN_TEXT
        assert predict.size.height == MIN_PREDICT


LONG = "The function returns a new list of the items in the order they were added to the dictionary. " * 25


def _fits(text: TokenText, room: int) -> None:
    from rich.cells import cell_len

    laid = [i for line in text._lines for i in line]
    assert laid == list(range(len(text.texts)))  # every token laid out, in order
    for line in text._lines:
        extra = (0 if text.joined else 1) + (1 if text.glyphs else 0)  # the space before, the glyph after
        used = sum(cell_len(text.texts[i].replace("\n", "↵")) + extra for i in line)
        assert used <= room, (line, used, room)


class _One(App):
    def compose(self):
        yield TokenText()


@pytest.mark.parametrize("glyphs", [False, True])
async def test_a_text_that_overflows_is_laid_out_at_the_width_the_scrollbar_leaves(glyphs):
    """Item 2: a short text (no scrollbar), then a long one: the long one was laid out at the full width
    when shown, the scrollbar appeared after it, and no resize followed in a terminal (tmux, 120x40: "…of
    the items" then " the order", t48 " in" under the scrollbar). Laid out at show, before any redraw."""
    words = tuple(f" {w}" for w in LONG.split())
    app = _One()
    async with app.run_test(size=(60, 12)) as pilot:
        text = app.query_one(TokenText)
        text.show(words[:5], False, np.full(5, 0.2), 0, glyphs)
        await pilot.pause()
        assert not text.show_vertical_scrollbar
        text.show(words, False, np.full(len(words), 0.01), 0, glyphs)
        room = text.size.width - text.styles.scrollbar_size_vertical
        _fits(text, room)  # as shown, before the scrollbar is drawn
        await pilot.pause()
        assert text.show_vertical_scrollbar and text.scrollable_content_region.width == room


async def test_word_pieces_of_one_shade_are_drawn_apart():
    """Item 4: "The cat sat" is The| c|at| s|at; joined, with one shade, " c" and "at" read as " cat".
    Neighbouring tokens are drawn in different styles, whatever their weights."""
    pieces = ("The", " c", "at", " s", "at")
    app = _One()
    async with app.run_test(size=(40, 6)) as pilot:
        text = app.query_one(TokenText)
        text.show(pieces, True, np.full(len(pieces), 0.2), None, False)
        await pilot.pause()
        cells = [(ch, seg.style) for seg in text.render_line(0) for ch in seg.text]
        assert "".join(ch for ch, _ in cells).startswith("".join(pieces))
        ends = np.cumsum([len(p) for p in pieces]) - 1  # each token's last letter
        styles = [cells[e][1] for e in ends]
        for k in range(len(pieces) - 1):
            assert styles[k] != styles[k + 1], (pieces[k], pieces[k + 1])


def test_every_key_named_by_textual_is_shown_as_the_key_itself():
    """Item 6: the help listed the heads screen's row keys as "j/k/right_square_bracket/left_squ…"."""
    from attn_tui.tui.keys import all_keys

    raw = [k.key for k in all_keys() if not k.display and any("_" in n for n in k.key.split(","))]
    assert raw == []


def test_i_is_found_by_what_it_takes_on_text_demo():
    """Item 6: palette search "sentence" did not find `i`, whose entry said "type your own tokens"."""
    from attn_tui.tui.keys import all_keys

    said = [k.help for k in all_keys() if k.key == "i" and k.action.endswith("do('heads.tokens')")]
    assert len(said) == 2 and all("sentence" in h for h in said)  # the app's row and the heads screen's


async def test_a_dialog_of_one_field_offers_no_next_field(settle, monkeypatch, tmp_path):
    text_demo_model(monkeypatch, tmp_path)
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "T", "i")
        assert len(app.screen.fields) == 1
        assert "tab" not in app.screen.hint and "enter: apply" in app.screen.hint


async def test_the_kept_session_line_does_not_stay_over_the_token_views_legend(state_home, settle):
    """Item 6: asked for a scenario, the app offers the kept session in a notice; in the token view the
    notices sit over the legend, and the offer covered it. Arriving there drops it (ctrl+r still works)."""
    from attn_tui.core import session_store as store
    from attn_tui.core.builtins import builtin
    from attn_tui.tui.session import OFFER_LINE, SessionKeeper
    from tests.tui.test_session_app import keeper, make_edits

    first = AttentionApp(session=keeper(state_home))
    async with first.run_test(size=(120, 40)) as pilot:
        await make_edits(first, pilot, settle)
        await pilot.press("q")
    box = builtin("box-kernel")
    app = AttentionApp(scenario=box, session=SessionKeeper(store.state_folder(), box, "box-kernel", asked=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any(OFFER_LINE in m for m in app.notes.messages())  # said on the first screen
        await _keys(pilot, settle, "T")
        assert isinstance(app.screen, TokensScreen)
        assert not any(OFFER_LINE in m for m in app.notes.messages())


def test_the_status_line_names_the_row_in_one_form():
    """Item 6: "row H" when no label repeats, "row t10 the" when one does: now always position and token."""
    from attn_tui.core.scenario import Scenario
    from attn_tui.tui.state import State
    from attn_tui.tui.views.status import status_parts

    def row(tokens, t):
        X = np.eye(len(tokens), 3)
        s = Scenario(X=X, W_Q=np.eye(3), W_K=np.eye(3), W_V=np.eye(3), tokens=tokens)
        return status_parts(State(s, row=t))[0].long

    assert row(("H", "i", "!"), 1) == "row t2 i"  # no label repeats
    assert row(("a", "b", "a"), 2) == "row t3 a"  # one repeats: positioned already, not twice


async def test_the_model_view_says_too_when_the_text_is_longer_than_training(settle, monkeypatch, tmp_path):
    """Review: past the longest training text the token view said so, the model view did not."""
    text_demo_model(monkeypatch, tmp_path)
    s, ref = open_ref("text-demo", LONG)
    most = ref.source.model.trained_up_to()
    assert most is not None and s.T > most
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _keys(pilot, settle, "M")
        assert isinstance(app.screen, ModelScreen)
        legend = app.screen.query_one("#model-legend").plain
        assert legend.startswith(f"{s.T:,} tokens: text-demo was never trained on a text longer than {most:,}")

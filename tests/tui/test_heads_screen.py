"""The heads screen (h): every head of a layer with its readings from the core, sortable, enter
opens a head on the pipeline, the learner's own tokens recompute every head, the combine is shown."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads import combine, layer_readings, open_heads, sort_readings
from attn_tui.core.heads.rollout import rollout_picture
from attn_tui.core.numfmt import fit_number
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.screens.pipeline import PipelineScreen
from attn_tui.tui.views.heads_view import ROLLOUT
from attn_tui.tui.widgets.head_tiles import HeadTiles

SIZE = (120, 40)
REPEAT = "q w e r q w e r"


async def _heads(pilot, settle):
    await settle(pilot)
    await pilot.press("h")
    await settle(pilot)
    assert isinstance(pilot.app.screen, HeadsScreen)
    assert shown_tiles(pilot.app.screen)
    return pilot.app.screen


def shown_tiles(screen) -> list:
    """The heads' tiles the heads screen's tile widget draws, in the order shown (the rollout's left out)."""
    return [t for t in screen.query_one(HeadTiles).tiles if (t.layer, t.head) != ROLLOUT]


def _tile_text(screen) -> str:
    w = screen.query_one("#head-tiles")
    return "\n".join(w.render_line(y).text for y in range(w.size.height))


def _app(tokens=None):
    s, ref = open_ref("induction-demo", tokens)
    return AttentionApp(scenario=s, head=ref)


async def test_every_heads_readings_are_the_cores(settle):
    app = _app(REPEAT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _heads(pilot, settle)
        text = _tile_text(screen)
        want = layer_readings(open_heads("induction-demo", REPEAT), 0)
        assert [(t.layer, t.head) for t in shown_tiles(screen)] == [(0, h) for h in range(4)]
        for r, tile in zip(want, shown_tiles(screen)):
            assert tile.lines[0] == f"H     {fit_number(r.mean_entropy_bits, 4)}"
            assert tile.lines[2] == f"prev  {fit_number(r.prev_token, 4)}"
            assert tile.lines[5] == f"ind   {fit_number(r.induction, 4)}"
            assert f"L0.H{r.head}" in text and tile.lines[2] in text


async def test_the_last_tile_is_the_whole_models_rollout(settle):
    app = _app(REPEAT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _heads(pilot, settle)
        last = screen.query_one(HeadTiles).tiles[-1]
        assert (last.layer, last.head) == ROLLOUT and last.title == "rollout L0–L1"
        n = screen.query_one(HeadTiles).lay.n
        np.testing.assert_array_equal(last.thumb, rollout_picture(open_heads("induction-demo", REPEAT), bins=n))
        assert "rollout L0–L1" in _tile_text(screen)


async def test_sort_finds_the_previous_token_and_induction_heads(settle):
    app = _app(REPEAT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _heads(pilot, settle)
        src = open_heads("induction-demo", REPEAT)
        for _ in range(3):  # head -> H -> log2t -> prev
            await pilot.press("v")
        await settle(pilot)
        assert screen.sort == "prev_token"
        best_prev = sort_readings(layer_readings(src, 0), "prev_token")[0]
        first = shown_tiles(screen)[0]
        assert (first.layer, first.head) == (best_prev.layer, best_prev.head) == (0, 0)
        assert "previous-token score, highest first" in screen.query_one("#heads-header").plain
        await pilot.press("right_curly_bracket")  # layer 1
        await settle(pilot)
        for _ in range(3):  # prev -> first -> self -> ind
            await pilot.press("v")
        await settle(pilot)
        assert screen.sort == "induction"
        best = sort_readings(layer_readings(src, 1), "induction")[0]
        first = shown_tiles(screen)[0]
        assert (first.layer, first.head) == (best.layer, best.head)
        assert best.induction > 0.9
        await pilot.press("V")
        await settle(pilot)
        assert (shown_tiles(screen)[-1].layer, shown_tiles(screen)[-1].head) == (best.layer, best.head)


async def test_arrows_pick_and_enter_opens_on_the_pipeline(settle, grid_cell):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await _heads(pilot, settle)
        await pilot.press("right", "right")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (0, 2)
        assert "▶ L0.H2" in _tile_text(app.screen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PipelineScreen)
        A = app.state.trace.A
        assert grid_cell(app, "A", 4, 4) == f"{A[4, 4]:.3f}"


async def test_the_learners_tokens_recompute_every_head(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await _heads(pilot, settle)
        app.set_state(app.state.step_layer(1))
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        app.screen.query_one("#field-tokens").value = "a b 9"
        await pilot.press("enter")
        await settle(pilot)
        assert "'9'" in str(app.screen.query_one("#form-message").render())
        assert app.state.head.source.T == 20  # kept
        app.screen.query_one("#field-tokens").value = "m a t h m a t h"
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HeadsScreen)
        assert app.state.head.source.tokens == tuple("mathmath")
        assert (app.state.head.layer, app.state.head.head) == (1, 0)
        shown = "  ".join(f"t{i} {tok}" for i, tok in enumerate("mathmath", 1))  # a token repeats: positions
        assert f"tokens: {shown}" in screen.query_one("#heads-header").plain
        want = layer_readings(open_heads("induction-demo", "m a t h m a t h"), 1)
        assert [t.lines[5] for t in shown_tiles(screen)] == [f"ind   {fit_number(r.induction, 4)}" for r in want]


async def test_the_combine_line_is_the_cores(settle):
    app = _app(REPEAT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _heads(pilot, settle)
        c = combine(open_heads("induction-demo", REPEAT), 0)
        foot = screen.query_one("#heads-foot").plain
        assert f"max |diff| {fit_number(c.max_abs_diff, 7)} ≤ {fit_number(c.tolerance, 7)}" in foot
        assert "holds" in foot and c.holds


async def test_one_head_says_where_heads_come_from(make_app, settle):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert "One head here" in app.screen.query_one("#heads-header").plain


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_twelve_heads_show_at_once_or_scroll(tmp_path, settle, size):
    from attn_tui.core.heads.multihead_write import save_heads

    rng = np.random.default_rng(0)
    L, H, T, d = 1, 12, 64, 8
    Q, K, V = (rng.standard_normal((L, H, T, d)) for _ in range(3))
    path = tmp_path / "twelve.npz"
    save_heads(str(path), Q, K, V, mask="causal")
    s, ref = open_ref(str(path))
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=size) as pilot:
        screen = await _heads(pilot, settle)
        tiles = screen.query_one("#head-tiles")
        assert len(shown_tiles(screen)) == 12
        if size == (120, 40):  # all twelve on the screen, no scrolling
            assert tiles.virtual_size.height <= tiles.size.height
            assert all(f"L0.H{h}" in _tile_text(screen) for h in range(12))
        assert "no W_O" in screen.query_one("#heads-foot").plain


@pytest.mark.slow
async def test_a_click_on_a_tile_picks_its_head(settle):
    app = _app(REPEAT)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _heads(pilot, settle)
        tiles = screen.query_one("#head-tiles")
        lay = tiles.lay
        target = shown_tiles(screen)[3]  # second line of tiles when two a line, else the fourth
        col, row = 3 % lay.per_row, 3 // lay.per_row
        await pilot.click("#head-tiles", offset=(col * lay.tile_w + 3, row * lay.tile_h + 2))
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (target.layer, target.head)
        assert isinstance(app.screen, HeadsScreen)  # a click picks; enter opens


async def test_above_512_tokens_the_rollout_tile_says_where_its_rows_are(tmp_path, settle):
    from attn_tui.core.heads.multihead_write import save_heads

    rng = np.random.default_rng(1)
    path = save_heads(tmp_path / "long.npz", *(rng.normal(size=(1, 2, 520, 2)) for _ in range(3)), mask="causal")
    s, ref = open_ref(str(path))
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _heads(pilot, settle)
        last = screen.query_one(HeadTiles).tiles[-1]
        assert (last.layer, last.head) == ROLLOUT and last.thumb is None
        assert "--rollout" in last.lines and "--query t" in last.lines

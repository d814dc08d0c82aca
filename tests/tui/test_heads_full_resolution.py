"""Issue 39, item 4: the heads screen draws A cell for cell where it fits. At 120×40 the 4 heads of
induction-demo at its default T = 20 are whole (half blocks, two query rows a line), every head on
screen, the axes labelled by position (tN); a captured model's 12 heads too; a 4,096-token file is
pooled, its tiles saying how many tokens a cell holds, and enter opens the head whole. Without
colour the shade glyphs draw it, one row a line. The drawing is read back off the screen and
compared with A computed here from each head's Q and K (tests/tui/heads_picture.py)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from rich.color import ColorSystem

from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.pipeline import PipelineScreen
from attn_tui.tui.widgets.head_tiles import STEPS, shade
from tests.tui.heads_picture import BLANK, cells, colours, drawn, lightness, open_heads_screen, own_A, picture_origin
from tests.tui.test_palette_contrast import shown

SIZE = (120, 40)


def _app(name: str, tokens=None) -> AttentionApp:
    s, ref = open_ref(name, tokens)
    app = AttentionApp(scenario=s, head=ref)
    app.first_screen = False
    return app


def _captured_like(path, L=2, H=4) -> str:
    """A causal file shaped as a capture of tests/capture's tiny models (2 layers x 4 heads, float32)
    on tokenizer labels (' the' twice), made without torch."""
    rng = np.random.default_rng(5)
    tokens = [" The", " cat", " sat", " on", " the", " mat", ".", "↵", " It", " sat", " on", " it"]
    Q, K, V = (rng.standard_normal((L, H, len(tokens), 8)).astype(np.float32) for _ in range(3))
    save_heads(path, Q, K, V, tokens=tokens, mask="causal", scale=[8**-0.5] * L, title="tiny · float32")
    return str(path)


def _check_whole(tiles, src) -> None:
    """Every head's picture is its A cell for cell: drawn exactly where A >= BLANK."""
    assert tiles.lay.half and tiles.lay.cw == 1
    assert tiles.virtual_size.height <= tiles.size.height and tiles.virtual_size.width <= tiles.size.width
    for index, tile in enumerate(tiles.tiles):
        assert tile.thumb.shape == (src.T, src.T_k), "unpooled"
        if tile.layer < 0:
            continue  # the rollout tile: R of the whole model, not one head's A
        A = own_A(src, tile.layer, tile.head)
        near = np.abs(A - BLANK) < 1e-9  # at the threshold rounding may go either way
        got = drawn(tiles, index, src.T, src.T_k)
        np.testing.assert_array_equal(got[~near], (A >= BLANK)[~near], err_msg=f"L{tile.layer}.H{tile.head}")


async def test_induction_demo_at_T_20_is_drawn_whole_at_120x40(settle):
    app = _app("induction-demo")
    async with app.run_test(size=SIZE) as pilot:
        tiles = await open_heads_screen(pilot, settle)
        src = app.state.head.source
        assert src.T == 20 and len(tiles.tiles) == 4 + 1  # and the rollout tile
        _check_whole(tiles, src)
        assert all("a cell =" not in t.title for t in tiles.tiles)
        assert "whole" in app.screen.query_one("#heads-header").plain


async def test_a_captured_tiny_models_heads_are_whole(settle, tmp_path):
    app = _app(_captured_like(tmp_path / "tiny.npz"))
    async with app.run_test(size=SIZE) as pilot:
        tiles = await open_heads_screen(pilot, settle)
        assert len(tiles.tiles) == 4 + 1
        _check_whole(tiles, app.state.head.source)
        app.set_state(app.state.step_layer(1))
        await settle(pilot)
        assert {t.layer for t in tiles.tiles} == {1, -1}
        _check_whole(tiles, app.state.head.source)


async def test_the_axes_are_labelled_by_position(settle):
    """Each key label tN stands over key N's column; each row label over query N's line (the upper
    of its two rows); labels every few positions at most."""
    app = _app("induction-demo")
    async with app.run_test(size=SIZE) as pilot:
        tiles = await open_heads_screen(pilot, settle)
        lay, grid = tiles.lay, cells(tiles)
        for index in range(len(tiles.tiles)):
            x0, y0 = picture_origin(tiles, index)
            axis = "".join(ch for ch, _ in grid[y0 - 1][: x0 + lay.pic_w])  # this tile's, not the next one's
            keys = [(m.start() - x0, int(m.group(1))) for m in re.finditer(r"t(\d+)", axis) if m.start() >= x0]
            assert keys and all(x == (n - 1) * lay.cw for x, n in keys)
            assert max(b[1] - a[1] for a, b in zip(keys, keys[1:])) <= 5  # every few keys
            for line in range(math.ceil(20 / 2)):
                side = "".join(ch for ch, _ in grid[y0 + line][x0 - lay.lab_w : x0]).strip()
                assert side == f"t{2 * line + 1}"


@pytest.mark.parametrize("theme, heavy_is_darker", [("textual-dark", False), ("textual-light", True)])
async def test_colours_follow_the_weight(settle, theme, heavy_is_darker):
    """One colour per weight bucket (the grids' viridis); heavy weights light on a dark ground and
    dark on a light one."""
    app = _app("induction-demo")
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        tiles = await open_heads_screen(pilot, settle)
        src = app.state.head.source
        heavy, light = [], []
        for index, tile in enumerate(t for t in tiles.tiles if t.layer >= 0):
            A = own_A(src, tile.layer, tile.head)
            for (t, i), colour in colours(tiles, index, src.T, src.T_k).items():
                (heavy if A[t, i] >= 0.9 else light if A[t, i] < 0.2 else []).append(lightness(colour))
        assert heavy and light
        assert (max(heavy) < min(light)) if heavy_is_darker else (min(heavy) > max(light))


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_at_16_colours_every_cell_drawn_stands_off_the_ground(settle, theme):
    """TERM=xterm: Rich sends each colour as one of 16 ANSI numbers (test_palette_contrast.shown, in
    xterm's palette): no drawn cell takes the ground's colour, and the heavy and light weights differ."""
    app = _app("induction-demo")
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        tiles = await open_heads_screen(pilot, settle)
        src, ground = app.state.head.source, shown(tiles.rich_style.bgcolor, ColorSystem.STANDARD)
        heavy, light = set(), set()
        for index, tile in enumerate(t for t in tiles.tiles if t.layer >= 0):
            A = own_A(src, tile.layer, tile.head)
            for (t, i), colour in colours(tiles, index, src.T, src.T_k).items():
                sent = shown(colour, ColorSystem.STANDARD)
                assert sent != ground, (tile.title, t, i)
                (heavy if A[t, i] >= 0.9 else light if A[t, i] < 0.2 else set()).add(sent.get_truecolor())
        assert heavy and light and not heavy & light


async def test_without_colour_shade_glyphs_draw_each_row(settle, monkeypatch):
    """NO_COLOR: one query row a line, a shade glyph by weight (a glyph cannot hold two weights);
    pooled when T does not fit, the tile saying so."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = _app("induction-demo")
    async with app.run_test(size=SIZE) as pilot:
        tiles = await open_heads_screen(pilot, settle)
        assert app.no_color and not tiles.lay.half
        grid = cells(tiles)
        for index, tile in enumerate(t for t in tiles.tiles if t.layer >= 0):  # not the rollout's
            x0, y0 = picture_origin(tiles, index)
            n_r, n_c = tile.thumb.shape
            k = math.ceil(20 / n_r)
            assert (k == 1) == ("a cell =" not in tile.title) and (k == 1 or f"a cell = {k}×{k} tokens" in tile.title)
            for r in range(n_r):
                line = "".join(ch for ch, _ in grid[y0 + r][x0 : x0 + n_c * tiles.lay.cw])
                assert line == "".join(g * tiles.lay.cw for g in shade(tile.thumb[r]))
        assert set(STEPS) and any("█" in "".join(ch for ch, _ in row) for row in grid)


@pytest.mark.long
@pytest.mark.slow
async def test_a_4096_token_file_is_pooled_and_enter_opens_a_head_whole(settle, tmp_path):
    rng = np.random.default_rng(2)
    T = 4096
    Q, K, V = (rng.standard_normal((1, 4, T, 4)).astype(np.float32) for _ in range(3))
    path = tmp_path / "long.npz"
    save_heads(path, Q, K, V, tokens=[f"w{t % 500}" for t in range(T)], mask="causal", scale=[0.5])
    app = _app(str(path))
    async with app.run_test(size=SIZE) as pilot:
        tiles = await open_heads_screen(pilot, settle)
        assert tiles.virtual_size.height <= tiles.size.height  # every head on screen
        for tile in (t for t in tiles.tiles if t.layer >= 0):
            n_r, n_c = tile.thumb.shape
            k = math.ceil(T / n_r)
            assert k > 1 and math.ceil(T / k) == n_r == n_c
            assert f"a cell = {k}×{k} tokens" in tile.title
        assert f"pooled, {k}×{k} tokens a cell" in app.screen.query_one("#heads-header").plain
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PipelineScreen)
        assert app.state.scenario.T == T  # the head whole

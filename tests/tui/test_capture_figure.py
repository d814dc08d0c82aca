"""A captured model's file shows its check's figure (`attn-tui capture`: "checked against the model:
max |ΔA| … over L × H heads") in the explorer's status line and the heads screen's header, at 120
and 80 columns, and `attn-tui heads` prints it, read from the file's provenance; a multi-head file
made by hand shows none.

No torch here: the file is made as capture makes one (core.heads: the model's A rounded to float32,
every head checked by check_heads, the result kept in the provenance), so this runs in the main
lane; tests/capture/test_capture_open.py opens a real capture of a tiny model."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from attn_tui.cli import explorer
from attn_tui.core.heads.capture_check import check_heads
from attn_tui.core.heads.multihead_io import open_file
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.heads import HeadsScreen

L, H, T, D = 3, 4, 10, 8


def _write(path, checked: bool):
    """A causal 3-layer x 4-head file; with ``checked`` its A is the float32 rounding of the core's
    A (what a model computing in float32 returns) and the provenance holds check_heads' result."""
    rng = np.random.default_rng(7)
    Q, K, V = (rng.standard_normal((L, H, T, D)).astype(np.float32) for _ in range(3))
    kw = dict(tokens=[f"w{t}" for t in range(T)], mask="causal", scale=[D**-0.5] * L, title="tiny · float32")
    save_heads(path, Q, K, V, **kw)
    if not checked:
        return None
    src = open_file(path)
    A = np.stack([np.stack([src.weights_block(ly, h)(0, T)[0] for h in range(H)]) for ly in range(L)])
    save_heads(path, Q, K, V, A=A.astype(np.float32), **kw)
    result = check_heads(open_file(path), "float32")
    assert result.holds and result.max_abs_diff > 0  # float32 rounding, well inside the allowance
    save_heads(path, Q, K, V, A=A.astype(np.float32), provenance={"max_abs_dA": result.max_abs_diff}, **kw)
    return f"{result.max_abs_diff:.1g}"


def _app(path) -> AttentionApp:
    """The app as `attn-tui --scenario FILE` opens it (explorer.run's door), past its first screen."""
    scenario, head = explorer.opened(argparse.Namespace(run_scenario=str(path), run_tokens=None))
    app = AttentionApp(scenario=scenario, head=head)
    app.first_screen = False
    return app


def _line(app, widget: str, y: int = 0) -> str:
    return app.screen.query_one(widget).render_line(y).text


SIZES = {  # the figure's words at each width
    120: ("max |ΔA| {} vs the model over 3 × 4 heads", "checked against the model: max |ΔA| {} over 3 × 4 heads"),
    80: ("|ΔA| {} vs model", "checked against the model: max |ΔA| {} over 3 × 4 heads"),
}


@pytest.mark.parametrize("width", [120, 80])
async def test_a_captured_files_check_is_on_screen(tmp_path, settle, width):
    path = tmp_path / "captured.safetensors"
    figure = _write(path, checked=True)
    status_words, header_words = (w.format(figure) for w in SIZES[width])
    app = _app(path)
    async with app.run_test(size=(width, 40 if width == 120 else 24)) as pilot:
        await settle(pilot)
        status = _line(app, "#status")
        assert status_words in status and "row t1 w0" in status and "c=1.000" in status
        await pilot.press("greater_than_sign", "right_curly_bracket")  # another head, another layer: the file's figure
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 1) and status_words in _line(app, "#status")
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, HeadsScreen) and app.screen.query_one("#head-tiles").tiles
        tokens_line = _line(app, "#heads-header", 1)
        assert tokens_line.lstrip().startswith(f"{header_words} · tokens: w0 w1")
        assert "ΔA" not in _line(app, "#status")  # the header has it: not twice on one screen


async def test_a_hand_made_multi_head_file_shows_no_figure(tmp_path, settle):
    path = tmp_path / "hand.safetensors"
    _write(path, checked=False)
    app = _app(path)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        assert "layer 0 · head 0 of 4" in _line(app, "#status") and "ΔA" not in _line(app, "#status")
        await pilot.press("h")
        await settle(pilot)
        assert _line(app, "#heads-header", 1).lstrip().startswith("tokens: w0 w1")
        assert "ΔA" not in _line(app, "#heads-header", 1)


def test_attn_tui_heads_prints_the_files_check(tmp_path):
    from attn_tui.report.heads_text import heads_text

    figure = _write(tmp_path / "c.safetensors", checked=True)
    lines = heads_text(open_file(tmp_path / "c.safetensors")).splitlines()
    assert lines[0] == "tiny · float32"
    assert f"checked against the model: max |ΔA| {figure} over 3 × 4 heads" in lines[1:4]
    _write(tmp_path / "h.safetensors", checked=False)
    assert "ΔA" not in heads_text(open_file(tmp_path / "h.safetensors"))

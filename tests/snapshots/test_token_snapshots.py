"""Snapshots of the token view (T) and the model view (M) on induction-demo repeated, each with the model's
prediction after the query and each head's share of it (each looked at
as PNG): dark and textual-light in a 256-colour terminal, and a 16-colour one (TERM=xterm, where each
token gets a bar glyph for its weight: the colour scale collapses there). The terminal is pinned here:
the token view reads its colour depth from TERM/COLORTERM, as users' terminals set them."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref

REPEAT = "q w e r t y u i q w e r t y u i"


@pytest.fixture
def colours(monkeypatch):
    def pin(term: str, colorterm: str | None):
        monkeypatch.setenv("TERM", term)
        if colorterm is None:
            monkeypatch.delenv("COLORTERM", raising=False)
        else:
            monkeypatch.setenv("COLORTERM", colorterm)

    return pin


def _app(layer=1) -> AttentionApp:
    s, ref = open_ref("induction-demo", REPEAT, layer=layer, head=2)
    return AttentionApp(scenario=s, head=ref)


def keys(settle, *pressed, theme=None):
    async def run_before(pilot):
        if theme:
            pilot.app.theme = theme
        await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_token_view_dark_120x40(snap_compare, settle, colours):
    colours("xterm-256color", "truecolor")
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=keys(settle, "T", "j", "j"))


def test_token_view_light_80x24(snap_compare, settle, colours):
    colours("xterm-256color", "truecolor")
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=keys(settle, "T", "f", theme="textual-light"))


def test_token_view_16_colours_80x24(snap_compare, settle, colours):
    colours("xterm", None)
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=keys(settle, "T"))


def test_model_view_every_layer_120x40(snap_compare, settle, colours):
    colours("xterm-256color", "truecolor")
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=keys(settle, "M", "M"))


def test_model_view_prediction_80x24(snap_compare, settle, colours):
    """The prediction's block on a small terminal: n has moved the ▶ to the head with the second share."""
    colours("xterm-256color", "truecolor")
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=keys(settle, "M", "j", "j", "n"))


def _captured_app(tmp_path, monkeypatch) -> AttentionApp:
    """A captured file's own prediction (tests/core/captured_files.py: the capture's writer, its top 10
    and top_readout), opened by its name from its folder so the frame holds no temporary path."""
    from attn_tui.core.heads.door import open_heads
    from attn_tui.tui.heads_nav import first_head
    from tests.core.captured_files import write_captured

    monkeypatch.chdir(tmp_path)
    write_captured(tmp_path / "captured.safetensors")
    s, ref = first_head(open_heads("captured.safetensors"), "captured.safetensors")
    return AttentionApp(scenario=s, head=ref)


def test_token_view_captured_prediction_120x40(snap_compare, settle, colours, tmp_path, monkeypatch):
    colours("xterm-256color", "truecolor")
    app = _captured_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(120, 40), run_before=keys(settle, "T", "k", "n"))


def test_model_view_captured_prediction_80x24(snap_compare, settle, colours, tmp_path, monkeypatch):
    colours("xterm-256color", "truecolor")
    app = _captured_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys(settle, "M"))

"""`attn-tui capture ... --open`: the explorer on the captured file's layer 0, head 0, the check's
figure in the status line from the first frame."""

from __future__ import annotations

from tiny_models import require_models

from attn_tui import cli
from attn_tui.cli import main
from attn_tui.tui.app import AttentionApp

TEXT = "the cat sat on the mat. The cat sat."


async def test_open_shows_the_models_head_and_the_check(tiny_folders, tmp_path, monkeypatch, capsys):
    require_models()
    opened = {}

    def run_scenario(scenario, theme=None, args=None, hint=True):
        opened.update(scenario=scenario, hint=hint)
        return 0

    monkeypatch.setattr(cli, "run_scenario", run_scenario)
    out = tmp_path / "o.safetensors"
    assert main(["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out), "--open"]) == 0
    figure = capsys.readouterr().out.split("max |ΔA| ")[1].split()[0]
    s = opened["scenario"]
    assert opened["hint"] is False
    assert s.title.startswith(f"max |ΔA| {figure} vs the model") and s.title.endswith(
        "layer 0, head 0 (counted from 0)"
    )
    assert s.mask == "causal" and s.tokens[1] == "cat"  # "Ġcat": a leading space, collapsed by the door
    app = AttentionApp(scenario=s)
    app.first_screen = False
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert f"max |ΔA| {figure} vs the model" in app.screen.query_one("#status").plain
